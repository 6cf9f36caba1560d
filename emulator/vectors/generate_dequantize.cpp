// emulator/vectors/generate_dequantize.cpp: the cases of dequantize files (README 6): every scale x every code.
#include "generate_cases.hpp"

namespace softmx::vec::gen_detail {
void dequantize_cases(const Header& h, const CaseSink& emit) {
  const u64 codes = format(h.from).code_mask();
  std::array<u64, 2> ops{};
  for (u64 s = 0; s <= 0xFF; ++s)
    for (u64 c = 0; c <= codes; ++c) {
      ops = {s, c};
      emit(ops);
    }
}

}  // namespace softmx::vec::gen_detail
