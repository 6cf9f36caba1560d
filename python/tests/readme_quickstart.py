"""The README's Python quick-start, extracted and run as a doctest (shared by test_examples.py
and install_test.py).

The quick-start is the first ```pycon block after the heading "### Python quick start" in
README.md: `>>>` lines with the output they print, checked by doctest exactly as printed.
"""

import os
import re
import subprocess
import sys


def quickstart(readme_path):
    text = open(readme_path, encoding="utf-8").read()
    at = text.find("### Python quick start")
    if at < 0:
        raise AssertionError(f"{readme_path}: no '### Python quick start' section")
    m = re.search(r"```pycon\n(.*?)```", text[at:], re.S)
    if not m:
        raise AssertionError(f"{readme_path}: no ```pycon block after '### Python quick start'")
    return m.group(1)


def quickstart_failures(readme_path, python=sys.executable, cwd=None, env=None):
    """Runs the quick-start's doctest with `python`; returns '' when every example printed what
    the README shows, else doctest's report."""
    code = quickstart(readme_path)
    runner = ("import doctest, sys\n"
              "t = doctest.DocTestParser().get_doctest(sys.stdin.read(), {}, 'README quick start', 'README.md', 0)\n"
              "r = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)\n"
              "r.run(t)\n"
              "print(f'{r.tries} examples, {r.failures} failures')\n"
              "sys.exit(1 if r.failures or not r.tries else 0)\n")
    r = subprocess.run([python, "-c", runner], input=code, capture_output=True, text=True, cwd=cwd, env=env)
    if r.returncode != 0:
        return r.stdout + r.stderr
    return ""
