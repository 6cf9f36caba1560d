"""A PEP 517 build backend for softmx that needs nothing beyond the standard library and CMake.

pip calls it (pyproject.toml: build-backend = "softmx_build_backend") to build the wheel of
`pip install .`. It

  0. reuses the repository's own build tree (build/, or SOFTMX_BUILD_DIR) when scripts/demo.sh,
     scripts/test.sh or a CMake build made it for this interpreter: it builds the target _softmx
     there (the library is already compiled) and skips 1 and 2;
  1. otherwise configures the repository with CMake in a build directory (default:
     build-python/<interpreter>-<platform>/ at the repository root, kept for the next install;
     SOFTMX_PYTHON_BUILD_DIR or
     --config-settings build-dir=DIR choose another), for the interpreter that runs it
     (Python_EXECUTABLE = sys.executable), Release, without the tests, benchmarks and CUDA
     programs, with ccache as the compiler launcher when it is on PATH;
  2. builds the target _softmx only (the extension and the library it links), on every core
     (CMAKE_BUILD_PARALLEL_LEVEL overrides);
  3. writes the wheel: softmx/*.py, the extension, and the .dist-info files (METADATA, WHEEL,
     RECORD with sha256 digests), tagged for this interpreter and platform.

Why not setuptools: the offline install runs in a venv over Debian's interpreter, whose
setuptools (66) cannot make a wheel without the separate `wheel` package; this backend writes
the wheel itself. Configuration and compiler errors stop the build with CMake's own message.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import zipfile

NAME = "softmx"
VERSION = "0.1.0"
SUMMARY = "Bit-exact OCP Microscaling (MX) formats for numpy: conversions, blocks, dot products, error statistics"

_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _tag():
    impl = sys.implementation.name
    abbrev = {"cpython": "cp", "pypy": "pp"}.get(impl, impl)
    interp = f"{abbrev}{sys.version_info[0]}{sys.version_info[1]}"
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return interp, interp, plat


def _metadata() -> str:
    readme = ""
    try:
        with open(os.path.join(_ROOT, "README.md"), encoding="utf-8") as f:
            readme = f.read()
    except OSError:
        pass
    return (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {VERSION}\nSummary: {SUMMARY}\n"
            f"Requires-Python: >=3.8\nRequires-Dist: numpy\nDescription-Content-Type: text/markdown\n\n{readme}")


def _wheel_file() -> str:
    interp, abi, plat = _tag()
    return (f"Wheel-Version: 1.0\nGenerator: softmx_build_backend {VERSION}\nRoot-Is-Purelib: false\n"
            f"Tag: {interp}-{abi}-{plat}\n")


def _run(cmd, **kw):
    print("softmx build:", " ".join(cmd), file=sys.stderr, flush=True)
    r = subprocess.run(cmd, **kw)
    if r.returncode != 0:
        raise SystemExit(f"softmx build: {cmd[0]} failed (exit status {r.returncode}); its output is above")


def _existing_build(settings):
    """The repository's own build tree (build/, or SOFTMX_BUILD_DIR), when scripts/demo.sh,
    scripts/test.sh or a CMake build made it with the Python module for this interpreter (a venv
    over Debian's python3 counts as that python3): building the extension there reuses the
    library already compiled (seconds, or about a minute for the binding alone), instead of a
    second full build in build-python/ (half an hour on 2 cores without ccache). None when there
    is no such tree, or when build-dir / SOFTMX_PYTHON_BUILD_DIR choose the build directory."""
    if settings.get("build-dir") or os.environ.get("SOFTMX_PYTHON_BUILD_DIR"):
        return None
    tree = os.path.abspath(os.environ.get("SOFTMX_BUILD_DIR") or os.path.join(_ROOT, "build"))
    try:
        with open(os.path.join(tree, "CMakeCache.txt"), encoding="utf-8", errors="replace") as f:
            cache = f.read()
    except OSError:
        return None
    python = re.search(r"^_?Python_EXECUTABLE:[A-Z]+=(.+)$", cache, re.M)
    module = re.search(r"^SOFTMX_PYTHON:BOOL=(\w+)$", cache, re.M)
    if not python or (module and module.group(1).upper() in ("OFF", "0", "FALSE", "NO")):
        return None
    ours = {os.path.realpath(sys.executable), os.path.realpath(getattr(sys, "_base_executable", sys.executable))}
    return tree if os.path.realpath(python.group(1).strip()) in ours else None


def _build_extension(config_settings) -> str:
    """Runs CMake; returns the directory holding the built package (softmx/ with the extension)."""
    cmake = shutil.which("cmake")
    if not cmake:
        raise SystemExit("softmx build: cmake is not installed (Debian: apt-get install cmake; "
                         "scripts/install-deps.sh installs everything)")
    settings = config_settings or {}
    jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
    tree = _existing_build(settings)
    if tree:
        print(f"softmx build: reusing the build tree {tree} (its library is built once; "
              f"SOFTMX_PYTHON_BUILD_DIR=DIR builds apart)", file=sys.stderr, flush=True)
        _run([cmake, "--build", tree, "--target", "_softmx", "--parallel", jobs])
        pkg = os.path.join(tree, "python", NAME)
        if any(f.startswith("_softmx") for f in os.listdir(pkg)):
            return pkg
    interp, _, plat = _tag()
    build = (settings.get("build-dir") or os.environ.get("SOFTMX_PYTHON_BUILD_DIR")
             or os.path.join(_ROOT, "build-python", f"{interp}-{plat}"))  # one per interpreter
    build = os.path.abspath(build)
    args = [cmake, "-S", _ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release", "-DSOFTMX_BUILD_TESTS=OFF",
            "-DSOFTMX_BUILD_BENCH=OFF", "-DSOFTMX_CUDA_CAPTURE=OFF", "-DSOFTMX_PYTHON=ON",
            f"-DPython_EXECUTABLE={sys.executable}"]
    if shutil.which("ccache") and not os.environ.get("CMAKE_CXX_COMPILER_LAUNCHER"):
        args.append("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
    _run(args)
    _run([cmake, "--build", build, "--target", "_softmx", "--parallel", jobs])
    pkg = os.path.join(build, "python", NAME)
    if not any(f.startswith("_softmx") and f.endswith(sysconfig.get_config_var("EXT_SUFFIX") or ".so")
               for f in os.listdir(pkg)):
        raise SystemExit(f"softmx build: the extension was not built into {pkg} (is pybind11-dev installed? "
                         f"CMake's messages above say why the Python module was skipped)")
    return pkg


def _record_line(path: str, data: bytes):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return [path, f"sha256={digest}", str(len(data))]


def _write_dist_info(target_dir: str) -> str:
    name = f"{NAME}-{VERSION}.dist-info"
    d = os.path.join(target_dir, name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata())
    with open(os.path.join(d, "WHEEL"), "w", encoding="utf-8") as f:
        f.write(_wheel_file())
    return name


# ---- PEP 517 hooks ------------------------------------------------------------------------------

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    return _write_dist_info(metadata_directory)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    pkg = _build_extension(config_settings)
    interp, abi, plat = _tag()
    wheel_name = f"{NAME}-{VERSION}-{interp}-{abi}-{plat}.whl"
    dist_info = f"{NAME}-{VERSION}.dist-info"
    files = []
    src_pkg = os.path.join(_ROOT, "python", NAME)
    for f in sorted(os.listdir(src_pkg)):
        if f.endswith(".py"):
            with open(os.path.join(src_pkg, f), "rb") as fh:
                files.append((f"{NAME}/{f}", fh.read()))
    ext_suffix = sysconfig.get_config_var("EXT_SUFFIX") or ".so"
    for f in sorted(os.listdir(pkg)):
        if f.startswith("_softmx") and f.endswith(ext_suffix):
            with open(os.path.join(pkg, f), "rb") as fh:
                files.append((f"{NAME}/{f}", fh.read()))
    files.append((f"{dist_info}/METADATA", _metadata().encode()))
    files.append((f"{dist_info}/WHEEL", _wheel_file().encode()))
    record = io.StringIO()
    w = csv.writer(record, lineterminator="\n")
    for path, data in files:
        w.writerow(_record_line(path, data))
    w.writerow([f"{dist_info}/RECORD", "", ""])
    os.makedirs(wheel_directory, exist_ok=True)
    out = os.path.join(wheel_directory, wheel_name)
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for path, data in files:
            info = zipfile.ZipInfo(path, date_time=(2020, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if path.endswith(ext_suffix) else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)
        z.writestr(zipfile.ZipInfo(f"{dist_info}/RECORD", date_time=(2020, 1, 1, 0, 0, 0)), record.getvalue())
    return wheel_name


def build_sdist(sdist_directory, config_settings=None):
    """The source tree as git tracks it (or, outside a git checkout, every file but build
    directories and caches) in NAME-VERSION.tar.gz."""
    base = f"{NAME}-{VERSION}"
    try:
        listed = subprocess.run(["git", "-C", _ROOT, "ls-files", "-z"], check=True, capture_output=True).stdout
        paths = [p for p in listed.decode().split("\0") if p]
    except (OSError, subprocess.CalledProcessError):
        paths = []
        for d, dirs, fs in os.walk(_ROOT):
            rel = os.path.relpath(d, _ROOT)
            dirs[:] = [x for x in dirs if not (x.startswith("build") or x.startswith(".") or x == "__pycache__")]
            paths += [os.path.normpath(os.path.join(rel, f)) for f in fs]
    os.makedirs(sdist_directory, exist_ok=True)
    out = os.path.join(sdist_directory, base + ".tar.gz")
    with tarfile.open(out, "w:gz", format=tarfile.PAX_FORMAT) as t:
        for p in sorted(paths):
            full = os.path.join(_ROOT, p)
            if os.path.isfile(full):
                t.add(full, arcname=f"{base}/{p}", recursive=False)
        pkg_info = _metadata().encode()
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        info.size = len(pkg_info)
        t.addfile(info, io.BytesIO(pkg_info))
    return base + ".tar.gz"
