#!/usr/bin/env bash
# conformance/consumer/run.sh BUILD_DIR WORK_DIR: the install test (ctest test_install_consumer).
#
# Installs the build in BUILD_DIR (already built: `cmake --install` copies, it does not
# rebuild) into WORK_DIR/prefix, checks what is there, then builds the consumer project in this
# folder against that tree both ways, find_package(softmx) and pkg-config with plain cc / c++,
# and runs every program it built: each computes a conversion, a block and a dot, checked
# against values computed by hand. Exit 0 when everything worked.
set -euo pipefail
# As a user runs them: every program below must find libsoftmx.so through its rpath (softmx.pc,
# CMake's, the installed tree's), never through the environment.
unset LD_LIBRARY_PATH
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "$1" && pwd)
work=$2
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
step() { echo "== $*"; }

step "cmake --install $build --prefix $prefix"
cmake --install "$build" --prefix "$prefix" > "$work/install.log"
libdir=$prefix/lib
[ -d "$libdir" ] || libdir=$(dirname "$(find "$prefix" -name libsoftmx.a | head -1)")
for f in include/softmx/softmx.h include/softmx/convert.hpp include/softmx/block.hpp bin/softmx \
         share/softmx/dpi/softmx_dpi.sv share/softmx/dpi/softmx_dpi.c; do
  [ -e "$prefix/$f" ] || { echo "install: $prefix/$f is missing" >&2; exit 1; }
done
for f in libsoftmx.a libsoftmx.so pkgconfig/softmx.pc cmake/softmx/softmxConfig.cmake; do
  [ -e "$libdir/$f" ] || { echo "install: $libdir/$f is missing" >&2; exit 1; }
done
soname=$(objdump -p "$libdir/libsoftmx.so" | awk '/SONAME/ {print $2}')
echo "libsoftmx.so: soname $soname"
[[ $soname =~ ^libsoftmx\.so\.[0-9]+$ ]] || { echo "install: unexpected soname '$soname'" >&2; exit 1; }
# Exported: the C API and namespace softmx; not the standard library's instantiations.
exports=$(nm -D --defined-only "$libdir/libsoftmx.so" | awk '{print $3}')
grep -qx 'softmx_convert@@SOFTMX_1' <<< "$exports" || { echo "install: softmx_convert is not exported" >&2; exit 1; }
if c++filt <<< "$exports" | grep -q '^std::'; then
  echo "install: libsoftmx.so exports standard-library symbols:" >&2
  c++filt <<< "$exports" | grep '^std::' | head >&2
  exit 1
fi
echo "libsoftmx.so exports $(grep -c '^softmx_' <<< "$exports") C functions and $(c++filt <<< "$exports" | grep -c '^softmx::') C++ symbols"
"$prefix/bin/softmx" convert --to e4m3 464.0000000000000000001

# SOFTMX_CONSUMER_FLAGS: extra compile and link flags (a sanitizer build's).
flags=${SOFTMX_CONSUMER_FLAGS:-}

step "find_package(softmx): configure, build, run"
cmake -S "$here" -B "$work/cmake-build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" > "$work/cmake.log" 2>&1 ||
  { cat "$work/cmake.log"; exit 1; }
cmake --build "$work/cmake-build" -j 2 > "$work/build.log" 2>&1 || { cat "$work/build.log"; exit 1; }
"$work/cmake-build/consumer_c"
"$work/cmake-build/consumer_cpp"

step "pkg-config: cc and c++"
export PKG_CONFIG_PATH=$libdir/pkgconfig
echo "pkg-config --cflags --libs softmx: $(pkg-config --cflags --libs softmx)"
# Exactly the README's line: softmx.pc's Libs carry the rpath, so the programs run as they are.
cc -std=c99 -Wall -Wextra -Wpedantic -Werror $flags "$here/main.c" $(pkg-config --cflags --libs softmx) -o "$work/pc_c"
"$work/pc_c"
c++ -std=c++20 -Wall -Wextra -Werror $flags "$here/main.cpp" $(pkg-config --cflags --libs softmx) -o "$work/pc_cpp"
"$work/pc_cpp"
dpidir=$(pkg-config --variable=dpidir softmx)
[ -f "$dpidir/softmx_dpi.sv" ] || { echo "pkg-config: dpidir has no softmx_dpi.sv" >&2; exit 1; }
# The DPI-C glue compiles as C11 and as C++ against a simulator's svdpi.h (Verilator's, when
# it is installed; examples/verilator runs it).
if svdpi=$(verilator --getenv VERILATOR_ROOT 2>/dev/null)/include/vltstd && [ -f "$svdpi/svdpi.h" ]; then
  cc -std=c11 -Wall -Wextra -Wpedantic -Werror -c "$dpidir/softmx_dpi.c" $(pkg-config --cflags softmx) -I"$svdpi" \
    -o "$work/softmx_dpi_c.o"
  c++ -x c++ -std=c++17 -Wall -Wextra -Werror -c "$dpidir/softmx_dpi.c" $(pkg-config --cflags softmx) -I"$svdpi" \
    -o "$work/softmx_dpi_cpp.o"
  echo "softmx_dpi.c compiles as C11 and as C++ against $svdpi/svdpi.h"
else
  echo "softmx_dpi.c: no svdpi.h (verilator not installed): its compile check is skipped"
fi
# The Verilator bench of examples/verilator built against the installed tree with the flags
# docs/guides/certify-rtl.md gives (pkg-config's, whose Libs carry the rpath), and run on every f16
# input into E4M3 without LD_LIBRARY_PATH (about 45 s of CPU; skipped without Verilator 5, or
# with SOFTMX_CONSUMER_VERILATOR=0).
repo=$(cd "$here/../.." && pwd)
if [ "${SOFTMX_CONSUMER_VERILATOR:-1}" != 0 ] && [ -z "$flags" ] &&
   verilator --version 2>/dev/null | grep -Eq '^Verilator ([5-9]|[1-9][0-9])\.'; then
  step "Verilator bench against the installed tree (pkg-config flags), run without LD_LIBRARY_PATH"
  v=$repo/examples/verilator
  if ! verilator --cc --exe --build --timing -j 2 --timescale 1ns/1ns -Wall --top-module tb_fp8 \
        --Mdir "$work/verilator" -o Vtb_fp8 \
        "$dpidir/softmx_dpi.sv" "$v/rtl/fp8_from_f32.sv" "$v/tb/tb_fp8.sv" "$dpidir/softmx_dpi.c" "$v/tb/sim_main.cpp" \
        -CFLAGS "$(pkg-config --cflags softmx) -O2" -LDFLAGS "$(pkg-config --libs softmx)" > "$work/verilator.log" 2>&1; then
    cat "$work/verilator.log"; echo "install: the Verilator bench did not build against the installed tree" >&2; exit 1
  fi
  "$work/verilator/Vtb_fp8" +mode=sweep +space=f16 +fmt=e4m3 | tail -n 3
else
  echo "Verilator bench against the installed tree: skipped (no Verilator 5, a sanitizer build, or SOFTMX_CONSUMER_VERILATOR=0)"
fi
echo "consumer: find_package and pkg-config builds ran, every result as expected"
