#!/usr/bin/env python3
"""gi-docgen-log.py LOG COMMAND...: runs COMMAND (a gi-docgen generate), shows its output and
keeps it in LOG, where the docs test looks for warnings (broken links, bad annotations).

gi-docgen's search knows the GIR's symbols and the content pages' titles only; the engine's
functions, types and macros (the `###` sections of engine-api.md) are added to the output's
index.json as entries that lead to their section, so the reference's search finds them too."""
import html
import json
import os
import re
import subprocess
import sys


def index_engine_api(output_dir):
    page = os.path.join(output_dir, "engine-api.html")
    index_path = os.path.join(output_dir, "index.json")
    if not (os.path.isfile(page) and os.path.isfile(index_path)):
        return
    with open(page, encoding="utf-8") as f:
        text = f.read()
    with open(index_path, encoding="utf-8") as f:
        index = json.load(f)
    known = {s.get("href") for s in index["symbols"]}
    for anchor, name, body in re.findall(
            r'<h3 id="([^"]+)"><code>((?:nb|NB)_\w+)</code>.*?</h3>(.*?)(?=<h[1-3][ >]|$)', text, flags=re.S):
        href = f"engine-api.html#{anchor}"
        if href in known:
            continue
        first = re.search(r"<p>(.*?)</p>", body, flags=re.S)
        summary = html.unescape(re.sub(r"<[^>]+>", "", first.group(1))) if first else ""
        summary = " ".join(summary.split())
        index["symbols"].append({"type": "content", "name": name, "href": href,
                                 "summary": summary[:120] + (" ..." if len(summary) > 120 else "")})
    with open(index_path, "w", encoding="utf-8") as f:
        json.dump(index, f, separators=(",", ":"))


log, command = sys.argv[1], sys.argv[2:]
result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
sys.stdout.write(result.stdout)
with open(log, "w", encoding="utf-8") as f:
    f.write(result.stdout)
if result.returncode == 0:
    for arg in command:
        if arg.startswith("--output-dir="):
            index_engine_api(arg[len("--output-dir="):])
sys.exit(result.returncode)
