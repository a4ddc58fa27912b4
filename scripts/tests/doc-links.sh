#!/usr/bin/env bash
# Checks the Markdown pages' relative links: README.md, docs/*.md, Benchmarks/README.md and every
# other README.md in the tree (outside build folders). Each [text](target) whose target is not a
# URL must name a file or folder that exists, relative to the page; a #fragment after a page must
# be one of that page's headings (GitHub's anchors: lower case, punctuation dropped, spaces as
# hyphens). Code blocks and code spans are skipped. Also checks that README.md stays a front door
# of at most 250 lines, with no table row over 200 characters. Needs only bash and python3.
set -euo pipefail
cd "$(dirname "$0")/../.."

python3 - <<'PYTHON'
import os, re, sys

def pages():
    found = ["README.md", "Benchmarks/README.md"]
    found += sorted(os.path.join("docs", name) for name in os.listdir("docs") if name.endswith(".md"))
    for root, dirs, files in os.walk("."):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in ("node_modules",)]
        for name in files:
            path = os.path.normpath(os.path.join(root, name))
            if name == "README.md" and path not in found:
                found.append(path)
    return [page for page in found if os.path.isfile(page)]

def prose(text):
    """The page without fenced code blocks and code spans."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return re.sub(r"`[^`\n]*`", "", text)

def anchors(path):
    text = re.sub(r"^```.*?^```", "", open(path, encoding="utf-8").read(), flags=re.S | re.M)
    found, seen = set(), {}
    for heading in re.findall(r"^#{1,6}\s+(.*?)\s*#*\s*$", text, flags=re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.replace("`", "").lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found

failures = 0
checked = 0
for page in pages():
    for target in re.findall(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)", prose(open(page, encoding="utf-8").read())):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):
            continue
        checked += 1
        path, _, fragment = target.partition("#")
        resolved = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
        if not os.path.exists(resolved):
            print(f"doc-links: FAIL: {page}: {target}: no such file ({resolved})", file=sys.stderr)
            failures += 1
        elif fragment and resolved.endswith(".md") and fragment not in anchors(resolved):
            print(f"doc-links: FAIL: {page}: {target}: {resolved} has no heading #{fragment}", file=sys.stderr)
            failures += 1

lines = open("README.md", encoding="utf-8").read().split("\n")
if lines and lines[-1] == "":
    lines.pop()
if len(lines) > 250:
    print(f"doc-links: FAIL: README.md has {len(lines)} lines: keep it at most 250, and move the rest to docs/",
          file=sys.stderr)
    failures += 1
for number, line in enumerate(lines, 1):
    if line.startswith("|") and len(line) > 200:
        print(f"doc-links: FAIL: README.md:{number}: a table row of {len(line)} characters (at most 200)",
              file=sys.stderr)
        failures += 1

if failures:
    sys.exit(1)
print(f"doc-links: pass: {checked} relative links resolve; README.md has {len(lines)} lines")
PYTHON
