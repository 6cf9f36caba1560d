// emulator/gemm/models.hpp: the GEMM's kernel families as one registry (internal; models.cpp).
//
// Each entry is a kernel family: the public description (GemmModelKernel, gemm.hpp: its name,
// the accumulation models it serves, how it computes, what it hands to the reference), whether
// its kernel computes a problem (`takes`), and its driver (`run`: the work items over the
// threads, in <name>_model.cpp). gemm.cpp's gemm_on checks the operands, builds the Problem and
// calls run_problem, which asks the entries in turn; a problem no entry takes, and any model
// without an entry, runs the reference per output (reference.cpp). To add a model's kernel:
// one entry here (models.cpp), its driver file, its tile kernel in kernel_api.hpp/kernels.hpp,
// and its tests in conformance/test_gemm.cpp against the reference.
#pragma once

#include <span>

#include "gemm/driver.hpp"

namespace softmx::gemm_detail {

struct GemmPath {
  GemmModelKernel info;
  bool (*takes)(const Problem& P);
  Flags (*run)(const Problem& P, unsigned threads);
};

/// The registry, in the order run_problem asks (the entries take disjoint problems).
std::span<const GemmPath> gemm_paths();

/// The problem's outputs by the first entry that takes it, or by the reference.
Flags run_problem(const Problem& P, unsigned threads);

// The drivers (one file each).
bool exact_takes(const Problem& P);
Flags exact_run(const Problem& P, unsigned threads);
bool sequential_takes(const Problem& P);
Flags sequential_run(const Problem& P, unsigned threads);
bool tensor_core_takes(const Problem& P);
Flags tensor_core_run(const Problem& P, unsigned threads);
bool gst_takes(const Problem& P);
Flags gst_run(const Problem& P, unsigned threads);
/// Every output by the reference (reference.cpp).
Flags reference_run(const Problem& P, unsigned threads);

}  // namespace softmx::gemm_detail
