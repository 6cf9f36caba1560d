// emulator/vectors/mma_scale_cases.hpp: the scale part of gen's block-scaled mma cases
// (vectors/README.md 6, "Block-scaled mma"). Private to emulator/vectors (generate.cpp).
//
// A block-scaled mma case is A_1..A_K B_1..B_K SA_1..SA_n SB_1..SB_n [C], n = K / scale-block.
// generate.cpp builds the element part (gen mma's unscaled cases); this file holds what only
// block scales have: the level-1 scale probes and the level-2 scale draws. The tensor-core
// capture program (tools/cuda/mma) writes exactly these cases for its block-scaled forms, so
// a capture file regenerates like a gen file.
#pragma once

#include <cstdint>
#include <vector>

#include "softmx/prng.hpp"
#include "softmx/vectors/header.hpp"

namespace softmx::vec::detail {

/// The scale code of 1: UE8M0 0x7F, UE4M3 0x38. Precondition: f != none.
std::uint8_t mma_scale_one(MmaScaleFormat f);

/// The level-1 scale probes of a block-scaled mma header, in order (duplicates among them
/// dropped), each as its operand columns. Every probe starts from all elements +0, every scale
/// 1 and C = +0 (C left out when h.addend is false), and is aimed at one feature of the
/// published models (docs/research/blackwell-mma.md section 9 numbers the cases): NaN scales
/// (over zero elements too), zero and tiny scales against the zero-term exponent, the alignment
/// width through the scales, overflow through the scales, which scale covers which product at
/// every block boundary, groups of 16 that cancel or are all zero, UE4M3 sign bits and
/// subnormal scales, signed zeros. Preconditions: h.operation mma, h.scale_format not none,
/// h.scale_block divides h.block.
std::vector<std::vector<std::uint64_t>> mma_scale_probes(const Header& h);

/// The scales of one level-2 case, drawn from `rng` (the scale stream, not the elements'):
/// kind = below(4), then
///   0: every scale any 8 bits (NaN and, for UE4M3, sign bits included);
///   1: every scale near 1 (UE8M0 0x6B + below(41): 2^-20 .. 2^20; UE4M3 a normal code of
///      exponent -3 .. 3: below(7) then below(8) per scale);
///   2: one scale near 1 for all of A's blocks and one for all of B's (two draws of kind 1's);
///   3: every scale anywhere in the finite range (UE8M0 below(255); UE4M3 below(0x7F)).
/// Kinds 0, 1, 3 draw SA_1..SA_n then SB_1..SB_n. Writes n codes to each of sa and sb.
void mma_random_scales(const Header& h, SplitMix64& rng, std::vector<std::uint64_t>& sa, std::vector<std::uint64_t>& sb);

}  // namespace softmx::vec::detail
