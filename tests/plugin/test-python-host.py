#!/usr/bin/env python3
"""Runs plugin/examples/python-host.py under PyGObject, as TAP: skipped when this
interpreter has no python3-gi (PyGObject) or the Braggscope typelib is not found."""
import os
import subprocess
import sys

example, out = sys.argv[1], sys.argv[2]
try:
    import gi

    gi.require_version("Braggscope", "1.0")
except (ImportError, ValueError) as e:
    print(f"1..0 # SKIP python3-gi or the Braggscope typelib is missing ({e})")
    sys.exit(0)

print("1..1")
r = subprocess.run([sys.executable, example, out], capture_output=True, text=True, timeout=300)
for line in (r.stdout + r.stderr).splitlines():
    print("# " + line)
print(("ok" if r.returncode == 0 and os.path.exists(out) else "not ok") + " 1 - python-host.py")
sys.exit(0)
