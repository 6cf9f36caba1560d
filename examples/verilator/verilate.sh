#!/bin/sh
# examples/verilator/verilate.sh LOG COMMAND...: runs a Verilator build command with its (long)
# output in LOG, printed only when it fails. Used by examples/verilator/CMakeLists.txt.
log=$1
shift
"$@" > "$log" 2>&1 || { status=$?; cat "$log"; exit $status; }
