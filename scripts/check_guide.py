#!/usr/bin/env python3
"""Runs a guide (docs/guides/*.md) as a test: ctest test_guide_NAME, label `guides`.

usage: check_guide.py [--console-only] GUIDE.md SOURCE_DIR BUILD_DIR

Every fenced ```console block is a shell session run from the repository root as a reader would
type it: a line starting with "$ " is a command (a line ending in "\\" continues it on the next
line), and the lines after it, up to the next command, are what it must print (stdout and stderr
together), line for line. A line "..." stands for any number of lines; a last line "[exit N]"
says the command exits with status N (otherwise it must exit 0). Every fenced ```pycon block is a
Python session, run by doctest (with ELLIPSIS) in one namespace per guide, `import softmx` from
the build tree. The commands run in a scratch copy of the repository root (each top-level entry
a symbolic link; `build` the build tree) with build/tools/softmx first on PATH, in order, sharing
files. --console-only leaves the pycon blocks to another test (the README's quick start is
test_python_examples). Exit status 1 naming the block, the command and the difference on the
first failure."""
import difflib
import doctest
import os
import re
import shutil
import subprocess
import sys
import tempfile

FENCE = re.compile(r"^```(\w*)\s*$")


def blocks(path):
    """(kind, first line number, lines) for every fenced console or pycon block."""
    out, kind, start, body = [], None, 0, []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            m = FENCE.match(line)
            if m and kind is None:
                kind, start, body = (m.group(1) or "text"), n + 1, []
            elif line.startswith("```") and kind is not None:
                if kind in ("console", "pycon"):
                    out.append((kind, start, body))
                kind = None
            elif kind is not None:
                body.append(line)
    return out


def commands(lines, start):
    """(line number, command, expected lines) for each "$ " command of a console block."""
    out, i = [], 0
    while i < len(lines):
        line = lines[i]
        if not line.startswith("$ "):
            raise SystemExit(f"line {start + i}: output before any command: {line!r}")
        n, cmd = start + i, line[2:]
        while cmd.endswith("\\") and i + 1 < len(lines):
            i += 1
            cmd = cmd + "\n" + lines[i]  # bash takes the backslash-newline as the reader's shell does
        i += 1
        expected = []
        while i < len(lines) and not lines[i].startswith("$ "):
            expected.append(lines[i])
            i += 1
        out.append((n, cmd, expected))
    return out


def matches(expected, got):
    """Line-for-line equality, where an expected "..." line takes any number of lines."""
    if not expected:
        return not got
    if expected[0] == "...":
        return any(matches(expected[1:], got[k:]) for k in range(len(got) + 1))
    return bool(got) and got[0] == expected[0] and matches(expected[1:], got[1:])


def main():
    args = sys.argv[1:]
    console_only = bool(args) and args[0] == "--console-only"
    if console_only:
        args = args[1:]
    if len(args) != 3:
        sys.exit(__doc__)
    guide, source, build = (os.path.abspath(a) for a in args)
    name = os.path.relpath(guide, source)
    work = tempfile.mkdtemp(prefix="softmx-guide-")
    try:
        for entry in os.listdir(source):
            if entry not in (".git", "build"):
                os.symlink(os.path.join(source, entry), os.path.join(work, entry))
        os.symlink(build, os.path.join(work, "build"))
        env = dict(os.environ)
        env["PATH"] = os.path.join(build, "tools", "softmx") + os.pathsep + env.get("PATH", "")
        env["PYTHONPATH"] = os.path.join(build, "python")
        env.pop("LD_LIBRARY_PATH", None)
        env["COLUMNS"] = "100"
        ran = 0
        globs = None
        for kind, start, body in blocks(guide):
            if kind == "console":
                for n, cmd, expected in commands(body, start):
                    status = 0
                    if expected and re.fullmatch(r"\[exit \d+\]", expected[-1]):
                        status = int(expected[-1][6:-1])
                        expected = expected[:-1]
                    r = subprocess.run(["bash", "-o", "pipefail", "-c", cmd], cwd=work, env=env,
                                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                    got = [l.rstrip() for l in r.stdout.splitlines()]
                    want = [l.rstrip() for l in expected]
                    if r.returncode != status or not matches(want, got):
                        diff = list(difflib.unified_diff(want, got, "the guide", "the command", lineterm=""))
                        diff = "\n".join(diff[:60] + ([f"... ({len(diff) - 60} more lines)"] if len(diff) > 60 else []))
                        sys.exit(f"{name} line {n}: $ {cmd}\n  exit status {r.returncode} (the guide says {status})\n{diff}")
                    ran += 1
            elif not console_only:
                if globs is None:
                    sys.path.insert(0, env["PYTHONPATH"])
                    os.chdir(work)
                    globs = {}
                test = doctest.DocTestParser().get_doctest("\n".join(body) + "\n", globs, name, guide, start - 1)
                runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
                out = []
                runner.run(test, out=out.append, clear_globs=False)
                if runner.failures:
                    sys.exit(f"{name}: the pycon block at line {start} failed:\n" + "".join(out))
                ran += len(test.examples)
        if ran == 0:
            sys.exit(f"{name}: no console or pycon block found")
        print(f"check_guide: {name}: {ran} commands and examples ran as the guide shows them")
    finally:
        os.chdir(source)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
