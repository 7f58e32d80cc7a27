#!/usr/bin/env python3
"""check-engine-api.py [--index=INDEX.json] HEADER... PAGE: the engine C API page documents the headers. TAP.

For every function, type and macro the headers (nanobragg.h, nb-status.h) declare, the page
(docs/engine-api.md) must have a section whose heading is its name in backquotes
("### `nb_plan_create`"); a function's section must hold its prototype, as the header
declares it (compared without comments and with blanks collapsed), in a C code block.  A
section for a name the headers no longer declare fails too.
"""
import re
import sys

index_paths = [a[len("--index="):] for a in sys.argv[1:] if a.startswith("--index=")]
args = [a for a in sys.argv[1:] if not a.startswith("--index=")]
headers, page_path = args[:-1], args[-1]


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def normalize(decl):
    decl = re.sub(r"__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)\s*", "", decl)
    decl = re.sub(r"\bNB_API\s+", "", decl)  # the export mark, not the prototype
    decl = re.sub(r"\s+", " ", decl).strip()
    decl = re.sub(r"\s*([(),;*])\s*", r"\1", decl)
    return decl


functions = {}  # name -> normalized prototype
types = set()
macros = set()
for path in headers:
    with open(path, encoding="utf-8") as f:
        raw = f.read()
    macros.update(re.findall(r"^#define\s+(NB_\w+)", raw, flags=re.M))
    text = strip_comments(raw)
    text = "\n".join(l for l in text.splitlines() if not l.lstrip().startswith("#"))
    text = re.sub(r'extern\s+"C"\s*\{', " ", text)
    # typedef names: "} name;" after a typedef'd struct or enum, and "typedef struct x x;"
    types.update(re.findall(r"\}\s*(nb_\w+)\s*;", text))
    types.update(re.findall(r"typedef\s+struct\s+\w+\s+(nb_\w+)\s*;", text))
    # function pointer types: "typedef void (*nb_name) (...);"
    types.update(re.findall(r"typedef\s+[\w\s\*]+\(\s*\*\s*(nb_\w+)\s*\)", text))
    # top-level declarations: outside braces, ending in ';', with "nb_name (" in them
    depth = 0
    current = []
    for ch in text:
        if ch == "{":
            depth += 1
            current = []
            continue
        if ch == "}":
            depth -= 1
            current = []
            continue
        if depth > 0:
            continue
        current.append(ch)
        if ch == ";":
            decl = "".join(current)
            current = []
            m = re.search(r"\b(nb_\w+)\s*\(", decl)
            if m and not decl.strip().startswith("typedef"):
                functions[m.group(1)] = normalize(decl)

with open(page_path, encoding="utf-8") as f:
    page = f.read()
sections = {}
for m in re.finditer(r"^#{2,4}\s+`([A-Za-z_]\w*)`\s*$", page, flags=re.M):
    end = page.find("\n#", m.end())
    sections[m.group(1)] = page[m.end(): end if end >= 0 else len(page)]

n = 0
failed = 0


def report(ok, what):
    global n, failed
    n += 1
    failed += not ok
    print(f"{'ok' if ok else 'not ok'} {n} - {what}")


for name in sorted(functions):
    body = sections.get(name)
    if body is None:
        report(False, f"function {name}: no '### `{name}`' section in {page_path}")
        continue
    blocks = [normalize(strip_comments(b)) for b in re.findall(r"```c\n(.*?)```", body, flags=re.S)]
    if functions[name] not in blocks:
        report(False, f"function {name}: the section's prototype is not the header's: "
                      f"{functions[name]}")
    else:
        report(True, f"function {name}")
for name in sorted(types | macros):
    report(name in sections, f"{'type' if name in types else 'macro'} {name}"
           + ("" if name in sections else f": no '### `{name}`' section in {page_path}"))
for name in sorted(set(sections) - set(functions) - types - macros):
    report(False, f"{page_path} documents {name}, which the headers do not declare")
# Every in-page link leads to a heading: gi-docgen's ids are the headings' text lowercased,
# without backquotes and punctuation, spaces as hyphens (### `NB_API` is #nb_api).
with open(page_path, encoding="utf-8") as f:
    page_text = f.read()
ids = {re.sub(r"[^\w\- ]", "", h).strip().lower().replace(" ", "-")
       for h in re.findall(r"^#+ (.*)$", page_text, flags=re.M)}
broken = sorted({a for a in re.findall(r"\]\(#([^)\s]+)\)", page_text) if a not in ids})
report(not broken, "every link within the page leads to a heading"
       + (f": broken {', '.join(broken)}" if broken else ""))
# With --index=index.json (the built reference's search index): every name is found by the
# reference's search, leading to its section of the page.
for index_path in index_paths:
    import json

    with open(index_path, encoding="utf-8") as f:
        entries = {s["name"]: s.get("href", "") for s in json.load(f)["symbols"] if s["type"] == "content"}
    unfound = sorted(n for n in set(functions) | types | macros
                     if entries.get(n) != f"engine-api.html#{n.lower()}")
    report(not unfound, f"the search of {index_path} finds every engine name"
           + (f"; not: {', '.join(unfound[:8])}" if unfound else ""))
report(len(functions) > 30 and len(types) > 10,
       f"{len(functions)} functions, {len(types)} types and {len(macros)} macros declared")
print(f"1..{n}")
