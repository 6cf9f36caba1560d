#!/usr/bin/env bash
# Installs the Debian packages softmx needs, skipping those already present.
# Root runs apt-get directly; anyone else goes through sudo.
set -euo pipefail

packages=(g++ make cmake libgtest-dev librapidcheck-dev libmpfr-dev libgmp-dev libboost-dev libbenchmark-dev)
# The fuzz targets (scripts/fuzz.sh) need clang and libFuzzer. Debian 12 ships clang's runtime
# libraries, libFuzzer's libclang_rt.fuzzer*.a among them, in libclang-rt-14-dev, which clang does
# not pull in; the libclang-rt-dev metapackage names the one that matches the default clang.
packages+=(clang libclang-rt-dev)
# The Verilator certification example (examples/verilator) and the install test's pkg-config
# build (conformance/consumer).
packages+=(verilator pkg-config)
# The Python package (python/, README "Python"): pybind11 and the headers of Debian's
# interpreter to build it, numpy to run it, pytest and hypothesis for its tests, and venv for the
# offline install (`/usr/bin/python3 -m venv --system-site-packages .venv`).
packages+=(pybind11-dev python3-dev python3-numpy python3-pytest python3-hypothesis python3-venv)
# softmx.distributed (python/softmx/_distributed.py, docs/SHARDING.md): sweeps sharded over a
# dask.distributed cluster, and its test (python/tests/test_distributed.py, skipped without them).
packages+=(python3-distributed python3-dask)
# The certificate (`softmx report`, softmx.report, docs/REPORT.md): its page is drawn by
# python/softmx/_report_render.py with matplotlib (the plots, as inline SVG; python3-pil comes
# with it and reads the browser test's screenshots) and jinja2 (the page); its browser test
# (python/tests/test_report_browser.py, label browser) runs Debian's headless chromium through
# chromium-driver and python3-selenium.
packages+=(python3-matplotlib python3-pil python3-jinja2 chromium chromium-driver python3-selenium)
# OpenBLAS: bench_gemm reports the GEMM kernels against its sgemm in the same run.
packages+=(libopenblas-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "softmx: all build dependencies are installed"
  exit 0
fi
echo "softmx: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
