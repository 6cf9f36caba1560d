// emulator/gemm/tables.cpp: the per-code tables of the GEMM kernels, from the descriptors.
#include "gemm/tables.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "softmx/convert.hpp"

namespace softmx::gemm_detail {
namespace {

/// A finite non-zero code's value as mag * 2^exp2 with mag odd, and its leading exponent.
struct Finite {
  int code;
  std::uint64_t mag;
  int exp2;
  int lead;
  bool neg;
};

}  // namespace

ElementTables make_element_tables(const Format& f, bool flush_subnormals) {
  ElementTables t;
  t.man_bits = f.man_bits;
  t.code_mask = static_cast<std::uint8_t>(f.code_mask());
  std::vector<Finite> fin;
  const int codes = static_cast<int>(f.code_mask()) + 1;
  for (int c = 0; c < codes; ++c) {
    const Unpacked u = unpack(f, static_cast<std::uint64_t>(c));
    t.sign[c] = u.sign ? 1 : 0;
    t.tc_e[c] = kZeroExponent;
    t.quantum[c] = kNoQuantum;
    if (u.cls == ValueClass::nan || u.cls == ValueClass::inf) {
      t.special[c] = true;
      continue;
    }
    t.value[c] = u.sign ? -0.0f : 0.0f;  // zeros keep their sign: fp32-sequential's zero sums follow it
    if (u.cls != ValueClass::finite) continue;
    if (flush_subnormals && u.exp < f.emin()) continue;  // read as a zero of its sign
    const int tz = std::countr_zero(u.sig);
    fin.push_back(Finite{c, u.sig >> tz, u.exp - 63 + tz, u.exp, u.sign});
    // f32: every named MX element value has at most 8 significant bits and lies in 2^-32 ..
    // 2^16; a runtime one (at most 8 bits) may lie outside f32's range (a far bias, e7m0).
    const double v = std::ldexp(static_cast<double>(u.sig >> tz), u.exp - 63 + tz);
    t.value[c] = static_cast<float>(u.sign ? -v : v);
    if (static_cast<double>(t.value[c]) != (u.sign ? -v : v)) t.value_exact = false;
    t.max_abs = std::max(t.max_abs, v);
    t.quantum[c] = u.exp - 63 + tz;
    // Tensor-core decomposition (tensor_core.cpp's decode): e clamped to emin, N below 2^(m+1).
    const int e = std::max<int>(u.exp, f.emin());
    const int shift = 63 - f.man_bits + (e - u.exp);
    const auto n = static_cast<std::int32_t>(u.sig >> shift);
    t.tc_n[c] = u.sign ? -n : n;
    t.tc_e[c] = e;
  }
  // Parts by magnitude, greedily from the largest: a part takes codes while its span (leading
  // exponent of its largest member + 1 - the smallest quantum exponent of its members) stays
  // within kMaxComponentBits.
  std::sort(fin.begin(), fin.end(), [](const Finite& x, const Finite& y) { return x.lead > y.lead; });
  std::size_t i = 0;
  while (i < fin.size()) {
    const int top = fin[i].lead;
    int q = fin[i].exp2;
    std::size_t j = i + 1;
    while (j < fin.size() && top + 1 - std::min(q, fin[j].exp2) <= kMaxComponentBits) q = std::min(q, fin[j++].exp2);
    Component part;
    part.q = q;
    part.bits = top + 1 - q;
    for (std::size_t x = i; x < j; ++x) {
      const double n = static_cast<double>(fin[x].mag << (fin[x].exp2 - q));  // exact: below 2^20
      part.n[fin[x].code] = fin[x].neg ? -n : n;
    }
    t.parts.push_back(part);
    i = j;
  }
  if (t.parts.empty()) t.parts.push_back(Component{});  // every code flushed or special: one zero part
  return t;
}

}  // namespace softmx::gemm_detail
