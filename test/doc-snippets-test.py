#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Code shown in doc/*.rst is code a test or an example runs.

A literal block of the docs preceded by the comment

    .. snippet: NAME (PATH)

must equal, line for line (indentation relative to its first line, trailing blanks ignored),
the lines of the module's file PATH between ``// snippet: NAME`` and ``// end snippet: NAME``.
README.md does the same with the comment ``<!-- snippet: NAME (PATH) -->`` before a fenced
block (```` ``` ````).
Fails when a snippet differs, when its file or markers are missing, or when the docs hold no
snippet at all.

usage: doc-snippets-test.py MODULE_DIR
"""
import glob
import os
import re
import sys
import textwrap

MARK = re.compile(r"^\s*\.\. snippet: (\S+) \((\S+)\)\s*$")
MD_MARK = re.compile(r"^<!-- snippet: (\S+) \((\S+)\) -->\s*$")


def dedent(lines):
    while lines and not lines[0].strip():
        lines = lines[1:]
    while lines and not lines[-1].strip():
        lines = lines[:-1]
    return textwrap.dedent("\n".join(l.rstrip() for l in lines)).splitlines()


def doc_block(lines, start):
    """The literal block after the first line ending in '::' at or after `start`."""
    i = start
    while i < len(lines) and not lines[i].rstrip().endswith("::"):
        i += 1
    if i == len(lines):
        return None
    indent = len(lines[i]) - len(lines[i].lstrip())
    block = []
    i += 1
    while i < len(lines) and (not lines[i].strip() or
                              len(lines[i]) - len(lines[i].lstrip()) > indent):
        block.append(lines[i])
        i += 1
    return dedent(block)


def fenced_block(lines, start):
    """The fenced block (```) right after line `start` of a Markdown file."""
    if start >= len(lines) or not lines[start].startswith("```"):
        return None
    end = start + 1
    while end < len(lines) and not lines[end].startswith("```"):
        end += 1
    return dedent(lines[start + 1:end]) if end < len(lines) else None


def source_block(path, name):
    lines = open(path, encoding="utf-8").read().splitlines()
    begin = [i for i, l in enumerate(lines) if l.strip() == "// snippet: " + name]
    end = [i for i, l in enumerate(lines) if l.strip() == "// end snippet: " + name]
    if len(begin) != 1 or len(end) != 1 or end[0] <= begin[0]:
        return None
    return dedent(lines[begin[0] + 1:end[0]])


def main():
    top = sys.argv[1]
    failures, checked = [], 0
    docs = sorted(glob.glob(os.path.join(top, "doc", "*.rst"))) + [os.path.join(top, "README.md")]
    for doc in docs:
        lines = open(doc, encoding="utf-8").read().splitlines()
        markdown = doc.endswith(".md")
        for n, line in enumerate(lines):
            m = (MD_MARK if markdown else MARK).match(line)
            if not m:
                continue
            name, path = m.groups()
            where = "%s:%d: snippet %s" % (os.path.relpath(doc, top), n + 1, name)
            shown = fenced_block(lines, n + 1) if markdown else doc_block(lines, n + 1)
            if shown is None:
                failures.append(where + (": no fenced block (```) follows" if markdown
                                         else ": no literal block ('::') follows"))
                continue
            full = os.path.join(top, path)
            if not os.path.isfile(full):
                failures.append(where + ": no file " + path)
                continue
            run = source_block(full, name)
            if run is None:
                failures.append("%s: %s has no single '// snippet: %s' ... '// end snippet: %s'"
                                % (where, path, name, name))
                continue
            checked += 1
            if shown != run:
                diff = [" doc: " + a + "\n code: " + b for a, b in zip(shown, run) if a != b]
                failures.append("%s differs from %s (%d lines shown, %d run)\n%s"
                                % (where, path, len(shown), len(run),
                                   diff[0] if diff else " (one is longer)"))
    if checked == 0 and not failures:
        failures.append("no '.. snippet: NAME (PATH)' in doc/*.rst or README.md")
    for f in failures:
        print(f)
    if not failures:
        print("%d doc snippets equal the code that runs them" % checked)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
