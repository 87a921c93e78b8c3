#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The map of the tree in the docs matches the tree.

doc/design.rst, "Where each concept lives": every header of model/core, model/common, model/roce, model/npu,
model/stats and helper (and of their subfolders) is covered by a row (a path or a glob such as ``model/core/tn-algo-*.c``;
a name without a folder takes the folder of the name before it in the row), and every row
names files that exist.

doc/training-net.rst, the module's document with every page included, parses as reStructuredText
without a warning (a table whose text runs into a column's margin, a heading of a level the
including page does not have), with Sphinx's own roles and directives taken as given; and every
page of doc/ is included.

README.md, "## Layout": every top-level folder of the module and every folder of model/ has a
row; every path a row names exists; in the rows' text, every `CamelCase` name is a class,
struct or function declared in a header of model/ or helper/, and every `lower-case-name` is a file (its
stem, its name or a glob) of the module.

Fails listing each mismatch.

usage: layout-doc-test.py MODULE_DIR
"""
import fnmatch
import os
import re
import subprocess
import sys

LAYERS = ["model/core", "model/common", "model/roce", "model/npu", "model/stats", "helper"]


def module_files(top):
    """Paths relative to top of the files the module keeps (git's list in a checkout)."""
    try:
        out = subprocess.run(["git", "-C", top, "ls-files", "--cached", "--others",
                              "--exclude-standard"], capture_output=True, text=True, check=True)
        files = [f for f in out.stdout.splitlines() if os.path.exists(os.path.join(top, f))]
        if files:
            return sorted(files)
    except (OSError, subprocess.CalledProcessError):
        pass
    found = []
    for root, dirs, names in os.walk(top):
        dirs[:] = [d for d in dirs if not d.startswith(".") and d != "build"]
        for n in names:
            found.append(os.path.relpath(os.path.join(root, n), top))
    return sorted(found)


def section(lines, title, underline=None):
    """The lines of the section headed `title` up to the next heading of its kind."""
    for i, line in enumerate(lines):
        if underline and line.strip() == title and i + 1 < len(lines) and \
                set(lines[i + 1].strip()) == {underline}:
            body = []
            for j in range(i + 2, len(lines)):
                if j + 1 < len(lines) and lines[j].strip() and \
                        set(lines[j + 1].strip()) == {underline} and \
                        len(lines[j + 1].strip()) >= len(lines[j].strip()):
                    break
                body.append(lines[j])
            return body
        if not underline and line.strip() == title:
            body = []
            for j in range(i + 1, len(lines)):
                if lines[j].startswith("## "):
                    break
                body.append(lines[j])
            return body
    return None


def design_rows(body):
    """The first column of the design table: a list of (line text, [patterns])."""
    rows = []
    rules = 0
    for line in body:
        if re.match(r"^=+\s+=+\s*$", line):
            rules += 1
            continue
        if rules != 2 or not line.strip():
            continue
        first = re.split(r"\s{2,}", line.strip(), maxsplit=1)[0]
        names = re.findall(r"``([^`]+)``", first)
        patterns = []
        folder = ""
        for n in names:
            if "/" in n.rstrip("/"):
                folder = os.path.dirname(n)
                patterns.append(n)
            else:
                patterns.append(os.path.join(folder, n) if folder else n)
        rows.append((line.strip(), patterns))
    return rows


def covers(pattern, path):
    stem = os.path.splitext(path)[0]
    p = pattern.rstrip("/")
    return (fnmatch.fnmatch(path, p) or fnmatch.fnmatch(stem, p) or
            path.startswith(p + "/") or path == p)


def rst_problems(top):
    """What docutils reports on doc/training-net.rst with its includes (Sphinx's :doc:, :ref:
    and highlight stubbed; ns-3's replace.txt is not in the module), and the pages of doc/ it
    does not include."""
    try:
        import io
        import docutils.core
        from docutils.parsers.rst import Directive, directives, roles
    except ImportError:
        return ["doc/: python3's docutils is missing (the Debian package python3-docutils, "
                "which utils/setup-debian.sh installs)"]

    def sphinx_role(name, rawtext, text, lineno, inliner, options=None, content=None):
        return [], []

    class SphinxDirective(Directive):
        has_content = True
        optional_arguments = 9
        final_argument_whitespace = True

        def run(self):
            return []

    for name in ("doc", "ref"):
        roles.register_local_role(name, sphinx_role)
    directives.register_directive("highlight", SphinxDirective)
    doc = os.path.join(top, "doc")
    main_page = os.path.join(doc, "training-net.rst")
    with open(main_page) as f:
        text = f.read()
    included = set(re.findall(r"^\.\. include:: (\S+)$", text, re.M))
    problems = ["doc/%s: not included by doc/training-net.rst" % os.path.basename(p)
                for p in sorted(os.listdir(doc))
                if p.endswith(".rst") and p != "training-net.rst" and p not in included]
    nested = set()
    for page in included:
        path = os.path.join(doc, page)
        if os.path.exists(path):
            with open(path) as f:
                nested.update(re.findall(r"^\.\. include:: (\S+)$", f.read(), re.M))
    problems = [p for p in problems if p.split(":")[0][len("doc/"):] not in nested]
    warnings = io.StringIO()
    docutils.core.publish_doctree(
        text.replace(".. include:: replace.txt\n", "\n"),
        source_path=main_page,
        settings_overrides={"report_level": 2, "halt_level": 5, "warning_stream": warnings})
    for line in warnings.getvalue().splitlines():
        m = re.match(r"^(\S+?):(\d+: \(.*)$", line)
        if m:
            path = m.group(1)
            path = os.path.relpath(os.path.join(top, "doc", path) if not os.path.isabs(path)
                                   and not os.path.exists(path) else path, top)
            problems.append("%s:%s" % (path, m.group(2)))
    return problems


def main():
    top = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    files = module_files(top)
    problems = []

    # design.rst: where each concept lives
    with open(os.path.join(top, "doc", "design.rst")) as f:
        design = f.read().splitlines()
    body = section(design, "Where each concept lives", "#")
    if body is None:
        problems.append("doc/design.rst: no section 'Where each concept lives'")
        body = []
    rows = design_rows(body)
    if not rows:
        problems.append("doc/design.rst: 'Where each concept lives' has no table rows")
    patterns = [p for _, ps in rows for p in ps]
    # a layer's subfolders (model/roce/hpcc, helper/hpcc) are mapped as the layer is
    headers = [f for f in files if f.endswith(".h") and
               any(os.path.dirname(f) == l or f.startswith(l + "/") for l in LAYERS)]
    for h in headers:
        if not any(covers(p, h) for p in patterns):
            problems.append("doc/design.rst, Where each concept lives: no row for %s" % h)
    for line, ps in rows:
        for p in ps:
            if not any(covers(p, f) for f in files):
                problems.append("doc/design.rst, Where each concept lives: ``%s`` names no file"
                                " (row: %s)" % (p, line[:60]))

    problems += rst_problems(top)

    # README.md: layout
    with open(os.path.join(top, "README.md")) as f:
        readme = f.read().splitlines()
    layout = section(readme, "## Layout")
    if layout is None:
        problems.append("README.md: no section '## Layout'")
        layout = []
    table = [l for l in layout if l.startswith("|") and not re.match(r"^\|\s*-", l)][1:]
    named = []
    classes = set()
    for f in files:
        if f.endswith(".h") and f.split("/")[0] in ("model", "helper"):
            with open(os.path.join(top, f), errors="replace") as src:
                text = src.read()
                classes.update(re.findall(r"^\s*(?:class|struct)\s+(\w+)", text, re.M))
                # and functions declared at namespace level (RoceIdealFctNs)
                classes.update(re.findall(r"^\w[\w:<>*& ]*\s(\w+)\(", text, re.M))
    # what a row may call a file: any tail of its path (with or without the extension) and
    # any folder above it ("tn-db", "standalone.cmake", "cmake/standalone.cmake", "test/core")
    stems = set()
    for f in files:
        parts = f.split("/")
        for i in range(len(parts)):
            tail = "/".join(parts[i:])
            stems.update([tail, os.path.splitext(tail)[0]])
            if i:
                stems.add("/".join(parts[:i]))
    for row in table:
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        if len(cells) < 2:
            continue
        for p in re.findall(r"`([^`]+)`", cells[0]):
            p = p.rstrip("/")
            named.append(p)
            if not any(f == p or f.startswith(p + "/") for f in files):
                problems.append("README.md, Layout: the path `%s` does not exist" % p)
        for token in re.findall(r"`([^`]+)`", cells[1]):
            if re.fullmatch(r"[A-Z][A-Za-z0-9]+", token):
                if token not in classes:
                    problems.append("README.md, Layout: `%s` is no class, struct or function "
                                    "of model/ or helper/" % token)
            elif re.fullmatch(r"[a-z0-9][a-z0-9_./*-]*", token):
                if not (token in stems or any(fnmatch.fnmatch(s, token) for s in stems)):
                    problems.append("README.md, Layout: `%s` is no file of the module" % token)
    folders = sorted({f.split("/")[0] for f in files if "/" in f and not f.startswith(".")})
    folders += sorted({"/".join(f.split("/")[:2]) for f in files
                       if f.startswith("model/") and f.count("/") >= 2})
    for d in folders:
        if not any(n == d or d.startswith(n + "/") or n.startswith(d + "/") for n in named):
            problems.append("README.md, Layout: no row for the folder %s/" % d)

    for p in problems:
        print(p)
    if problems:
        print("layout-doc: %d mismatch(es) between the tree and its map in the docs"
              % len(problems))
        return 1
    print("layout-doc: %d headers in doc/design.rst's map, %d folders in README's layout"
          % (len(headers), len(folders)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
