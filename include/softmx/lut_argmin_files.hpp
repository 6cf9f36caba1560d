// softmx/lut_argmin_files.hpp: the files of `softmx gemm-golden --layout lut-argmin` (the seed-003
// MX-FP4 GEMM golden generator's data/input and data/golden folders, plus softmx's extras and a
// manifest), as bytes and written to a folder. The CLI and the Python module both call this, so
// they write the same bytes.
//
//   LutGemmOptions o{.m = 64, .n = 64, .k = 256};
//   LutGoldenOutput g = lut_argmin_golden_output(o, 1, "softmx gemm-golden --layout lut-argmin -o out");
//   write_lut_argmin_golden("out", g);   // out/data/input/a_8.bin, ..., out/data/golden/manifest.txt
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "softmx/flags.hpp"
#include "softmx/lut_argmin.hpp"
#include "softmx/vectors/output_file.hpp"

namespace softmx {

/// One file of the output.
struct LutGoldenFile {
  std::string path;    ///< relative to the output folder: "data/input/a_8.bin", "data/golden/manifest.txt", ...
  std::string layout;  ///< what its bytes are, as the manifest says (empty for the manifest itself)
  std::vector<std::uint8_t> bytes;
};

/// Every file, in this order: data/input/{a_8,b_8,a_scale,b_scale}.bin (lut_argmin_gemm_golden's
/// LutGemmFiles, byte for byte as the script writes them), data/golden/expected_data.bin (the
/// exact model's C, f32 little-endian), expected_f32_sequential.bin, a_f32.bin and b_f32.bin
/// (the inputs, f32 little-endian), and last data/golden/manifest.txt (the options, each file's
/// size, SHA-256 and layout).
struct LutGoldenOutput {
  LutGemmOptions options;
  std::optional<std::uint64_t> seed;  ///< the SplitMix64 seed of the inputs; none: given by the caller
  std::vector<LutGoldenFile> files;
  Flags expected_flags = 0;  ///< LutGemmFiles::expected_flags
};

/// The output for the inputs gemm_golden_inputs(seed, m * k + k * n) (A row-major, then B), as
/// `softmx gemm-golden --layout lut-argmin --seed S`. `command` is recorded verbatim in the
/// manifest's `command = ` line (the CLI's argv joined by spaces). Throws std::invalid_argument
/// for a zero dimension (LutGemmOptions) or a product of sizes that overflows.
LutGoldenOutput lut_argmin_golden_output(const LutGemmOptions& o, std::uint64_t seed, std::string_view command);

/// The same for inputs given by the caller: a (m x k) and b (k x n), f32 bits, row-major (the
/// script draws them from torch.randn). The manifest says `inputs = given` in place of the seed
/// and the input distribution. Throws std::invalid_argument for a size mismatch.
LutGoldenOutput lut_argmin_golden_output(std::span<const std::uint32_t> a, std::span<const std::uint32_t> b,
                                         const LutGemmOptions& o, std::string_view command);

/// Writes every file under `dir`: dir/data/input and dir/data/golden are each replaced as a unit
/// (vec::OutputDirectory), both written in full before either is swapped in, so a failure leaves
/// both as they were. Throws vec::OutputError (with the errno text) when a file cannot be written.
void write_lut_argmin_golden(const std::string& dir, const LutGoldenOutput& out, vec::OutputLimits limits = {});

}  // namespace softmx
