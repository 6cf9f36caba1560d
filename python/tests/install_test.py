#!/usr/bin/env python3
"""The README's offline install, exactly, in a copy of the repository (ctest test_python_install,
labels python-install and long).

    install_test.py SOURCE_DIR WORK_DIR

Copies the files git tracks (and untracked files it does not ignore; outside a git checkout,
every file but build directories) from SOURCE_DIR into WORK_DIR/repo, then runs there

    /usr/bin/python3 -m venv --system-site-packages .venv && .venv/bin/pip install --no-build-isolation .

with pip forbidden to use any package index (PIP_NO_INDEX=1), so a download would fail the
test. Then, from outside the copy, the installed package imports, converts, quantizes and
multiplies, and the README's Python quick-start runs. The build reuses ccache when it is on
PATH (CCACHE_BASEDIR is set to the copy, so the copy's relative paths hit the cache of earlier
runs); from a cold cache it compiles the library (28 minutes measured on 2 busy cores).
"""

import os
import shutil
import subprocess
import sys
import textwrap


def copy_tree(src, dst):
    try:
        listed = subprocess.run(["git", "-C", src, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                                check=True, capture_output=True).stdout.decode().split("\0")
    except (OSError, subprocess.CalledProcessError):
        listed = []
        for d, dirs, files in os.walk(src):
            dirs[:] = [x for x in dirs if not (x.startswith("build") or x in (".git", ".venv", "__pycache__"))]
            listed += [os.path.relpath(os.path.join(d, f), src) for f in files]
    n = 0
    for rel in listed:
        s = os.path.join(src, rel)
        if not rel or not os.path.isfile(s):  # a tracked file deleted in the working tree
            continue
        t = os.path.join(dst, rel)
        os.makedirs(os.path.dirname(t), exist_ok=True)
        shutil.copy2(s, t)
        n += 1
    return n


def main():
    src, work = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    shutil.rmtree(work, ignore_errors=True)
    repo = os.path.join(work, "repo")
    os.makedirs(repo)
    print(f"copied {copy_tree(src, repo)} files into {repo}", flush=True)
    env = dict(os.environ, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    env.pop("PYTHONPATH", None)
    if shutil.which("ccache"):
        env.update(CCACHE_BASEDIR=repo, CCACHE_NOHASHDIR="1")
    line = ("/usr/bin/python3 -m venv --system-site-packages .venv && "
            ".venv/bin/pip install --no-build-isolation .")
    print(f"$ {line}", flush=True)
    r = subprocess.run(["bash", "-c", line], cwd=repo, env=env)
    if r.returncode != 0:
        sys.exit(f"install_test: the install line failed with exit status {r.returncode}")
    check = textwrap.dedent("""
        import numpy as np, softmx, os
        assert os.path.dirname(softmx.__file__).endswith("site-packages/softmx"), softmx.__file__
        assert softmx.encode(np.float32([464.0]), "e4m3")[0] == 0x7E
        q = softmx.quantize(np.ones((2, 64), np.float32), "e2m1")
        assert (q.dequantize() == 1).all()
        b = softmx.quantize(np.ones((64, 3), np.float32), "e4m3", axis=0)
        assert (softmx.matmul(q, b) == 64).all()
        print("installed softmx", softmx.__version__, "from", softmx.__file__)
    """)
    py = os.path.join(repo, ".venv", "bin", "python")
    r = subprocess.run([py, "-c", check], cwd=work, env=env)
    if r.returncode != 0:
        sys.exit("install_test: the installed package failed its check")
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from readme_quickstart import quickstart_failures
    failures = quickstart_failures(os.path.join(repo, "README.md"), py, work)
    if failures:
        sys.exit("install_test: the README's Python quick-start failed:\n" + failures)
    print("install_test: the offline install works; the README quick-start runs as printed")


if __name__ == "__main__":
    main()
