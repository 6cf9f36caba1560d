// conformance/test_batch.cpp: the batch entry point equals the single-value one, for every
// 16-bit input into every format under every mode, saturation and dialect policy set.
#include <gtest/gtest.h>

#include <vector>

#include "softmx/convert.hpp"
#include "softmx/prng.hpp"
#include "support/report.hpp"

namespace softmx {
namespace {

template <class Out>
void compare(FormatId src, FormatId dst, const Context& c, const Dialect& d, conformance::Tally& t) {
  std::vector<std::uint16_t> in(65536);
  std::vector<std::uint64_t> rbits(65536);
  SplitMix64 rng(0xBA7C4 + static_cast<unsigned>(dst));
  for (std::size_t i = 0; i < in.size(); ++i) {
    in[i] = static_cast<std::uint16_t>(i);
    rbits[i] = rng.next() & 0xFFFFFFFFu;
  }
  std::vector<Out> out(in.size());
  std::vector<Flags> flags(in.size());
  const Converter conv(src, dst, c, d);
  conv.run(in.data(), out.data(), flags.data(), in.size(), c.rounding == Rounding::rs ? rbits.data() : nullptr);
  for (std::size_t i = 0; i < in.size(); ++i) {
    Context ci = c;
    ci.rbits = rbits[i];
    const Result want = convert(src, dst, in[i], c.rounding == Rounding::rs ? ci : c, d);
    t.check(out[i] == static_cast<Out>(want.code) && flags[i] == want.flags, [&] {
      return std::string(format(src).name) + "->" + std::string(format(dst).name) + " input " + std::to_string(i);
    });
  }
}

TEST(Batch, EqualsScalarForEvery16BitInput) {
  conformance::Tally t("batch == scalar, every f16/bf16 input, every format, mode, saturation, dialect");
  for (const Dialect& d : all_dialects())
    for (FormatId src : {FormatId::f16, FormatId::bf16})
      for (const Format& dst : all_formats())
        for (int r = 0; r < kRoundingCount; ++r)
          for (Saturation s : {Saturation::finite, Saturation::none}) {
            Context c;
            c.rounding = static_cast<Rounding>(r);
            c.saturation = s;
            if (unsupported_reason(d, dst.id, c)) continue;
            switch (dst.width <= 8 ? 0 : dst.width <= 16 ? 1 : dst.width <= 32 ? 2 : 3) {
              case 0: compare<std::uint8_t>(src, dst.id, c, d, t); break;
              case 1: compare<std::uint16_t>(src, dst.id, c, d, t); break;
              case 2: compare<std::uint32_t>(src, dst.id, c, d, t); break;
              default: compare<std::uint64_t>(src, dst.id, c, d, t); break;
            }
          }
  t.report();
}

}  // namespace
}  // namespace softmx
