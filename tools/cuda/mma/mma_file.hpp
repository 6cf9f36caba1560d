// tools/cuda/mma/mma_file.hpp: the vector file of one mma capture form (vectors/README.md,
// operation mma; block-scaled forms with the scale-format / scale-block keys and SA/SB
// columns), and the placement of its cases in the tiles the device runs.
//
// Placement (both engines): a tile is one instruction; case j (0..7) of a tile puts its A
// codes in row j of A, its B codes in column j of B, its scales in row j of scale_A and column
// j of scale_B, and its C in C[j][j], and reads D[j][j] = sum_k A[j][k] B[k][j] + C[j][j],
// which depends on that case only. Every other element, C and scale is zero (rows 8..M-1 of A,
// the off-diagonal C), never read back. A last, partial tile repeats nothing: its unused
// diagonal places hold zero cases whose D is discarded.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "capture_host.hpp"
#include "mma_catalog.hpp"
#include "mma_cases.hpp"

namespace softmx::mma_capture {

inline constexpr int kCasesPerTile = 8;

/// The inputs of a batch of tiles as the device API takes them (mma_device_api.hpp): per tile,
/// 8 rows of A codes (a[(t * 8 + j) * k + kk]), 8 columns of B codes (b[(t * 8 + j) * k + kk]),
/// 8 rows of A scales and 8 columns of B scales (n per row, sa[(t * 8 + j) * n + s]), and the
/// 8 diagonal C codes (c[t * 8 + j]).
struct TileBatch {
  int tiles = 0, k = 0, scales = 0;
  std::vector<std::uint8_t> a, b, sa, sb;
  std::vector<std::uint32_t> c;
};

/// Places `cases` into tiles (see the top of this file).
TileBatch place(const CaseShape& s, const std::vector<MmaCase>& cases);

/// The header of form `f`'s file: operation mma with the shape's keys, `model`, level, seed,
/// generator (softmx's: every form's cases are `softmx gen mma`'s), then x-gpu, x-compute-capability, x-driver,
/// x-cuda-runtime, x-build-target, x-instruction, x-date, x-capture. Checked as a whole
/// (Header::validate; a model softmx does not know yet is checked with kStandInModel).
vec::Header file_header(const CaptureForm& f, const std::string& model, const capture::Provenance& p,
                        const vec::GenOptions& o);

/// The whole file: the header (with the cases' `cases` and `inputs-sha256`, vec::record_cases,
/// as gen writes them), a comment naming the columns, then per case its operands and D
/// (d[i], masked to the accumulator's width), fixed-width upper-case hex. Preconditions:
/// d.size() >= cases.size(); h's shape is s.
std::string file_text(const vec::Header& h, const CaseShape& s, const std::vector<MmaCase>& cases,
                      const std::vector<std::uint32_t>& d);

}  // namespace softmx::mma_capture
