// emulator/gemm/kernels.hpp: the GEMM tile kernels, many outputs per vector (internal;
// included by one translation unit per instruction set, gemm/isa_*.cpp, which defines
// SOFTMX_GEMM_NS, a namespace private to it, and SOFTMX_GEMM_BYTES, the vector width in bytes,
// and is compiled with the matching -m flags). GNU vector extensions: one source, which GCC and
// Clang lower to the instruction set in force (as simd/lanes.hpp does for the conversions).
//
// No std:: template is used here: its instantiation, compiled with this file's -m flags, could be
// the copy the linker keeps for code that runs on every CPU.
//
// Vectors run across the NR outputs of a tile row (B's vectors); each of the MR rows of A is
// broadcast. kernel_api.hpp states what each kernel receives and keeps.
//
// The kernels, each in its own header with the argument for its exactness:
//   gemm/tile_lanes.hpp  the vector types and the helpers the kernels share;
//   gemm/exact_tile.hpp  exact (exact_tile);
//   gemm/seq_tile.hpp    fp32-sequential (seq_tile);
//   gemm/tc_tile.hpp     the tensor-core models (tc_tile, tc_tile_rz);
//   gemm/gst_tile.hpp    GST-FDPA (gst_tile), on tc_tile's cut;
// and here the table of a source's instantiations (make_kernels). Each translation unit
// includes it once, under its own namespace.
#include "gemm/exact_tile.hpp"
#include "gemm/gst_tile.hpp"
#include "gemm/kernel_api.hpp"
#include "gemm/seq_tile.hpp"
#include "gemm/tc_tile.hpp"
#include "gemm/tile_lanes.hpp"

#ifndef SOFTMX_GEMM_NS
#error "define SOFTMX_GEMM_NS and SOFTMX_GEMM_BYTES before including gemm/kernels.hpp"
#endif

namespace softmx::gemm_detail::SOFTMX_GEMM_NS {

template <int MR, int NV, bool Diag>
void fill_seq(SeqFn* out) {
  out[static_cast<int>(Rounding::rne)] = seq_tile<MR, NV, Rounding::rne, Diag>;
  out[static_cast<int>(Rounding::rna)] = seq_tile<MR, NV, Rounding::rna, Diag>;
  out[static_cast<int>(Rounding::rz)] = seq_tile<MR, NV, Rounding::rz, Diag>;
  out[static_cast<int>(Rounding::ru)] = seq_tile<MR, NV, Rounding::ru, Diag>;
  out[static_cast<int>(Rounding::rd)] = seq_tile<MR, NV, Rounding::rd, Diag>;
  out[static_cast<int>(Rounding::ro)] = seq_tile<MR, NV, Rounding::ro, Diag>;
}

template <int MR, int NV, bool Diag>
void fill_tc(TcFn (*out)[2][2]) {
  out[0][0][0] = tc_tile<MR, NV, false, false, false, Diag>;
  out[0][1][0] = tc_tile<MR, NV, false, true, false, Diag>;
  out[1][0][0] = tc_tile<MR, NV, true, false, false, Diag>;
  out[1][1][0] = tc_tile<MR, NV, true, true, false, Diag>;
  out[0][0][1] = tc_tile<MR, NV, false, false, true, Diag>;
  out[0][1][1] = tc_tile<MR, NV, false, true, true, Diag>;
  out[1][0][1] = tc_tile<MR, NV, true, false, true, Diag>;
  out[1][1][1] = tc_tile<MR, NV, true, true, true, Diag>;
}

/// The table: MR x NV-vector tiles for the GEMM, 1 x NV-vector tiles of pairs (Diag: output
/// lane l is the dot of A's and B's vector l) for dot_pairs.
template <int EMR, int ENV, int SMR, int SNV, int TMR, int TNV, int GMR = TMR, int GNV = TNV>
Kernels make_kernels() {
  Kernels k{};
  k.exact_mr = EMR;
  k.exact_nr = ENV * kD;
  k.exact = exact_tile<EMR, ENV, false, false>;
  k.exact_narrow = exact_tile<EMR, ENV, false, true>;
  k.seq_mr = SMR;
  k.seq_nr = SNV * kF;
  fill_seq<SMR, SNV, false>(k.seq);
  k.tc_mr = TMR;
  k.tc_nr = TNV * kF;
  fill_tc<TMR, TNV, false>(k.tc);
  k.tc_rz[0] = tc_tile_rz<TMR, TNV, false, false>;
  k.tc_rz[1] = tc_tile_rz<TMR, TNV, true, false>;
  k.gst_mr = GMR;
  k.gst_nr = GNV * kF;
  k.gst = gst_tile<GMR, GNV, false>;
  k.exact_pairs = exact_tile<1, ENV, true, false>;
  k.exact_pairs_narrow = exact_tile<1, ENV, true, true>;
  fill_seq<1, SNV, true>(k.seq_pairs);
  fill_tc<1, TNV, true>(k.tc_pairs);
  k.tc_rz_pairs[0] = tc_tile_rz<1, TNV, false, true>;
  k.tc_rz_pairs[1] = tc_tile_rz<1, TNV, true, true>;
  k.gst_pairs = gst_tile<1, GNV, true>;
  return k;
}

}  // namespace softmx::gemm_detail::SOFTMX_GEMM_NS
