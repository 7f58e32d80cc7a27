#!/usr/bin/env python3
"""gi-docgen-log.py LOG COMMAND...: runs COMMAND (a gi-docgen generate), shows its output and
keeps it in LOG, where the docs test looks for warnings (broken links, bad annotations)."""
import subprocess
import sys

log, command = sys.argv[1], sys.argv[2:]
result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
sys.stdout.write(result.stdout)
with open(log, "w", encoding="utf-8") as f:
    f.write(result.stdout)
sys.exit(result.returncode)
