// emulator/vectors/operation.cpp: see operation.hpp.
#include "softmx/vectors/operation.hpp"

#include "softmx/gemm.hpp"

#include <stdexcept>

#include "softmx/error.hpp"
#include "softmx/text.hpp"
#include "softmx/block.hpp"

namespace softmx::vec {
namespace {

// A code column of format `fm` (named or runtime: a convert header's spec).
Field code_field(const Format& fm, std::string label) {
  return Field{fm.hex_digits(), fm.code_mask(), std::move(label), fm};
}
Field code_field(FormatId f, std::string label) { return code_field(format(f), std::move(label)); }

std::string indexed(const char* base, std::size_t i) { return std::string(base) + "_" + std::to_string(i + 1); }

}  // namespace

namespace {

std::string column_labels(const std::vector<const Field*>& fields, bool flags) {
  // Up to 1024 bytes the labels are listed whole (every committed file's column comment is
  // under 450 bytes); a wider line (a dot of 64 pairs of 4096-element blocks has 524,417
  // columns) is named by its first and last labels and its count, so that neither the comment
  // gen writes nor an error message grows with the layout.
  std::string s;
  for (const Field* f : fields) s += (s.empty() ? "" : " ") + f->label;
  if (flags) s += " FLAGS";
  if (s.size() <= 1024) return s;
  const std::size_t n = fields.size() + (flags ? 1 : 0);
  std::string a;
  for (std::size_t i = 0; i < 8; ++i) a += (a.empty() ? "" : " ") + fields[i]->label;
  a += " ...";
  for (std::size_t i = fields.size() - 3; i < fields.size(); ++i) a += " " + fields[i]->label;
  if (flags) a += " FLAGS";
  return a + " (" + std::to_string(n) + " columns)";
}

}  // namespace

std::string LineLayout::columns() const {
  std::vector<const Field*> all;
  for (const auto* v : {&operands, &results})
    for (const Field& f : *v) all.push_back(&f);
  return column_labels(all, flags);
}

std::string LineLayout::operand_columns() const {
  std::vector<const Field*> all;
  for (const Field& f : operands) all.push_back(&f);
  return column_labels(all, false);
}

std::string LineLayout::expected() const {
  const std::size_t o = operands.size(), r = results.size();
  if (!flags) return std::to_string(o) + " or " + std::to_string(o + r) + " fields (" + columns() + "; no flags)";
  return std::to_string(o) + ", " + std::to_string(o + r) + " or " + std::to_string(o + r + 1) + " fields (" + columns() +
         ")";
}

LineLayout line_layout(const Header& h) {
  LineLayout l;
  const std::size_t k = h.block;
  switch (h.operation) {
    case Operation::convert:
      if (h.layout == Layout::runs) {
        l.operands.push_back(code_field(h.from, "FIRST"));
        l.results.push_back(code_field(h.to, "OUT"));
        break;
      }
      l.operands.push_back(code_field(h.from, "IN"));
      if (h.ctx.rounding == Rounding::rs) {
        const int w = h.ctx.rbits_width;
        l.operands.push_back(Field{(w + 3) / 4, w == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << w) - 1, "R", std::nullopt});
      }
      l.results.push_back(code_field(h.to, "OUT"));
      break;
    case Operation::quantize: {
      for (std::size_t i = 0; i < k; ++i) l.operands.push_back(code_field(h.from, k == 1 ? "IN" : indexed("IN", i)));
      if (h.ctx.rounding == Rounding::rs) {
        const int w = h.ctx.rbits_width;
        for (std::size_t i = 0; i < k; ++i)
          l.operands.push_back(Field{(w + 3) / 4, w == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << w) - 1,
                                     k == 1 ? "R" : indexed("R", i), std::nullopt});
      }
      l.results.push_back(code_field(FormatId::e8m0, "SCALE"));
      for (std::size_t i = 0; i < k; ++i) l.results.push_back(code_field(h.to, k == 1 ? "OUT" : indexed("OUT", i)));
      break;
    }
    case Operation::dequantize:
      l.operands.push_back(code_field(FormatId::e8m0, "SCALE"));
      l.operands.push_back(code_field(h.from, "CODE"));
      l.results.push_back(code_field(h.to, "OUT"));
      break;
    case Operation::dot:
      for (std::size_t j = 0; j < h.blocks; ++j) {
        // Labels: SA, A.3 for one pair; SA_2, A_2.3 for the second of several.
        auto label = [&](char side, bool scale, std::size_t i) {
          std::string s;
          if (scale) s += 'S';
          s += side;
          if (h.blocks != 1) s.append("_").append(std::to_string(j + 1));
          if (!scale && k != 1) s.append(".").append(std::to_string(i + 1));
          return s;
        };
        l.operands.push_back(code_field(FormatId::e8m0, label('A', true, 0)));
        for (std::size_t i = 0; i < k; ++i) l.operands.push_back(code_field(h.from, label('A', false, i)));
        l.operands.push_back(code_field(FormatId::e8m0, label('B', true, 0)));
        for (std::size_t i = 0; i < k; ++i) l.operands.push_back(code_field(h.to, label('B', false, i)));
      }
      // C after the pairs (the addend, a code of the destination), as an mma line has it last.
      if (h.dot_addend) l.operands.push_back(code_field(h.dot_to, "C"));
      l.results.push_back(code_field(h.dot_to, "OUT"));
      break;
    case Operation::mma:
      for (std::size_t i = 0; i < k; ++i) l.operands.push_back(code_field(h.from, indexed("A", i)));
      for (std::size_t i = 0; i < k; ++i) l.operands.push_back(code_field(h.to, indexed("B", i)));
      if (h.scale_format != MmaScaleFormat::none) {  // block scales: A's row, then B's column
        const std::size_t n = k / h.scale_block;
        const FormatId sf = h.scale_format == MmaScaleFormat::ue8m0 ? FormatId::e8m0 : FormatId::e4m3;
        for (std::size_t j = 0; j < n; ++j) l.operands.push_back(code_field(sf, n == 1 ? "SA" : indexed("SA", j)));
        for (std::size_t j = 0; j < n; ++j) l.operands.push_back(code_field(sf, n == 1 ? "SB" : indexed("SB", j)));
      }
      if (h.addend) l.operands.push_back(code_field(h.accumulator, "C"));
      l.results.push_back(code_field(h.accumulator, "D"));
      l.flags = false;
      break;
  }
  return l;
}

Evaluator::Evaluator(const Header& h) : h_(h), layout_(line_layout(h)), dialect_(&h.dialect_ref()) {
  try {
    switch (h.operation) {
      case Operation::convert:
        converter_.emplace(h.from, h.to, h.ctx, *dialect_);
        break;
      case Operation::quantize: {
        // Support is checked by quantizing one zero block now, so that every line does not
        // repeat the error.
        std::vector<std::uint64_t> ops(layout_.operands.size(), 0), res(layout_.results.size(), 0);
        evaluate(ops, res);
        break;
      }
      case Operation::dequantize:
        if (auto why = unsupported_reason(*dialect_, h.to, h.ctx)) throw Unsupported(*why);
        break;
      case Operation::dot:
        model_ = find_accumulation_model(h.accumulation);
        if (!model_) throw InputError("unknown accumulation model '" + h.accumulation + "'");
        {  // The model's preconditions (a runtime element under a tensor-core model, a pair whose
           // products leave the exact accumulator's range) checked once on a zero line.
          std::vector<std::uint64_t> ops(layout_.operands.size(), 0), res(layout_.results.size(), 0);
          evaluate(ops, res);
        }
        break;
      case Operation::mma:
        tc_model_ = find_tensor_core_model(h.model);
        if (!tc_model_) throw InputError("unknown tensor-core model '" + h.model + "'");
        {  // The model's preconditions (formats, accumulator, scales) checked once on a zero line.
          std::vector<std::uint64_t> ops(layout_.operands.size(), 0), res(layout_.results.size(), 0);
          evaluate(ops, res);
        }
        break;
    }
  } catch (const Unsupported& e) {
    throw InputError(std::string("cannot compute ") + describe(h) + ": " + e.what());
  } catch (const std::invalid_argument& e) {
    throw InputError(std::string("cannot compute ") + describe(h) + ": " + e.what());
  }
}

std::optional<Flags> Evaluator::try_evaluate(std::span<const std::uint64_t> ops, std::span<std::uint64_t> res) const {
  try {
    return evaluate(ops, res);
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

void Evaluator::evaluate_dots(std::span<const std::uint64_t> ops, std::size_t lines, std::span<std::uint64_t> results,
                              std::span<Flags> flags) const {
  const std::size_t k = h_.block, n = h_.blocks, per = n * (2 * k + 2) + (h_.dot_addend ? 1 : 0);
  std::vector<std::uint8_t> ac(lines * n * k), bc(lines * n * k), as(lines * n), bs(lines * n);
  std::vector<std::uint32_t> addend(h_.dot_addend ? lines : 0);
  for (std::size_t l = 0; l < lines; ++l) {
    if (h_.dot_addend) addend[l] = static_cast<std::uint32_t>(ops[l * per + per - 1]);  // C, after the pairs
    for (std::size_t j = 0; j < n; ++j) {
      const std::uint64_t* o = ops.data() + l * per + j * (2 * k + 2);  // SA_j A_j... SB_j B_j...
      as[l * n + j] = static_cast<std::uint8_t>(o[0]);
      bs[l * n + j] = static_cast<std::uint8_t>(o[1 + k]);
      for (std::size_t i = 0; i < k; ++i) {
        ac[(l * n + j) * k + i] = static_cast<std::uint8_t>(o[1 + i]);
        bc[(l * n + j) * k + i] = static_cast<std::uint8_t>(o[2 + k + i]);
      }
    }
  }
  std::vector<std::uint32_t> c(lines);
  GemmOptions go;
  go.model = model_;
  go.out = h_.ctx;
  go.to = h_.dot_to;
  go.addend = addend;
  dot_pairs(gemm_rows(h_.from, lines, n * k, k, ac, as), gemm_rows(h_.to, lines, n * k, k, bc, bs), go, c, flags);
  for (std::size_t l = 0; l < lines; ++l) results[l] = c[l];
}

void Evaluator::evaluate_mmas(std::span<const std::uint64_t> ops, std::size_t lines,
                              std::span<std::uint64_t> results) const {
  const std::size_t per = layout_.operands.size();
  auto one_by_one = [&] {
    for (std::size_t l = 0; l < lines; ++l) (void)evaluate(ops.subspan(l * per, per), results.subspan(l, 1));
  };
  if (h_.accumulator != FormatId::f32) return one_by_one();
  // A line: A_1..A_k, B_1..B_k, [SA_1..SA_n, SB_1..SB_n], [C] (line_layout).
  const std::size_t k = h_.block;
  const bool scaled = h_.scale_format != MmaScaleFormat::none;
  const std::size_t sblock = scaled ? h_.scale_block : k, n = k / sblock;
  std::vector<std::uint8_t> ac(lines * k), bc(lines * k), as(lines * n, 127), bs(lines * n, 127);
  std::vector<std::uint32_t> c(lines, 0), d(lines);
  for (std::size_t l = 0; l < lines; ++l) {
    const std::uint64_t* o = ops.data() + l * per;
    for (std::size_t i = 0; i < k; ++i) {
      ac[l * k + i] = static_cast<std::uint8_t>(o[i]);
      bc[l * k + i] = static_cast<std::uint8_t>(o[k + i]);
    }
    if (scaled)
      for (std::size_t j = 0; j < n; ++j) {
        as[l * n + j] = static_cast<std::uint8_t>(o[2 * k + j]);
        bs[l * n + j] = static_cast<std::uint8_t>(o[2 * k + n + j]);
      }
    if (h_.addend) c[l] = static_cast<std::uint32_t>(o[per - 1]);
  }
  GemmOperand a = gemm_rows(h_.from, lines, k, sblock, ac, as), b = gemm_rows(h_.to, lines, k, sblock, bc, bs);
  a.scale_format = b.scale_format = h_.scale_format == MmaScaleFormat::ue4m3 ? FormatId::e4m3 : FormatId::e8m0;
  try {
    mma_pairs(a, b, *tc_model_, scaled, c, d);
  } catch (const std::invalid_argument&) {
    return one_by_one();  // some line is refused: evaluate() names it
  }
  for (std::size_t l = 0; l < lines; ++l) results[l] = d[l];
}

Flags Evaluator::evaluate(std::span<const std::uint64_t> ops, std::span<std::uint64_t> res) const {
  switch (h_.operation) {
    case Operation::convert: {
      const Result r = h_.ctx.rounding == Rounding::rs ? (*converter_)(ops[0], ops[1]) : (*converter_)(ops[0]);
      res[0] = r.code;
      return r.flags;
    }
    case Operation::quantize: {
      const std::size_t k = h_.block;
      BlockOptions o;
      o.element = h_.to;
      o.dialect = dialect_;
      o.rule = h_.scale;
      o.rounding = h_.ctx.rounding;
      o.saturation = h_.ctx.saturation;
      o.tininess = h_.ctx.tininess;
      o.rbits_width = h_.ctx.rbits_width;
      if (h_.ctx.rounding == Rounding::rs) o.rbits = ops.subspan(k, k);
      QuantizedBlock q;
      switch (format(h_.from).width) {
        case 16: {
          std::vector<std::uint16_t> v(ops.begin(), ops.begin() + static_cast<std::ptrdiff_t>(k));
          q = quantize_block(h_.from, v.data(), k, o);
          break;
        }
        case 32: {
          std::vector<std::uint32_t> v(ops.begin(), ops.begin() + static_cast<std::ptrdiff_t>(k));
          q = quantize_block(h_.from, v.data(), k, o);
          break;
        }
        default:
          q = quantize_block(h_.from, ops.data(), k, o);
          break;
      }
      res[0] = q.scale;
      for (std::size_t i = 0; i < k; ++i) res[1 + i] = q.codes[i];
      return q.flags;
    }
    case Operation::dequantize: {
      const Result r = dequantize_element(h_.from, static_cast<std::uint8_t>(ops[0]), static_cast<std::uint8_t>(ops[1]), h_.to,
                                          h_.ctx, *dialect_);
      res[0] = r.code;
      return r.flags;
    }
    case Operation::dot: {
      const std::size_t k = h_.block, n = h_.blocks;
      std::vector<std::uint8_t> codes(2 * k * n);
      std::vector<BlockRef> a, b;
      a.reserve(n);
      b.reserve(n);
      for (std::size_t j = 0; j < n; ++j) {
        const std::size_t base = j * (2 * k + 2);
        std::uint8_t* ca = codes.data() + 2 * k * j;
        std::uint8_t* cb = ca + k;
        for (std::size_t i = 0; i < k; ++i) {
          ca[i] = static_cast<std::uint8_t>(ops[base + 1 + i]);
          cb[i] = static_cast<std::uint8_t>(ops[base + 2 + k + i]);
        }
        // A runtime element (FormatId::runtime) is read through its descriptor, the header's.
        a.push_back(BlockRef{h_.from, static_cast<std::uint8_t>(ops[base]), {ca, k}, &h_.from});
        b.push_back(BlockRef{h_.to, static_cast<std::uint8_t>(ops[base + 1 + k]), {cb, k}, &h_.to});
      }
      DotDestination dst{h_.dot_to, std::nullopt};
      if (h_.dot_addend) dst.c = static_cast<std::uint32_t>(ops[n * (2 * k + 2)]);  // C, after the pairs
      const Result r = dot_general(a, b, dst, h_.ctx, *model_);
      res[0] = r.code;
      return r.flags;
    }
    case Operation::mma: {
      const std::size_t k = h_.block;
      std::vector<std::uint8_t> codes(2 * k);
      for (std::size_t i = 0; i < 2 * k; ++i) codes[i] = static_cast<std::uint8_t>(ops[i]);
      // C is the last operand (block-scaled lines hold their scales between B and C).
      const std::uint32_t c = h_.addend ? static_cast<std::uint32_t>(ops[layout_.operands.size() - 1]) : 0;
      if (h_.scale_format != MmaScaleFormat::none) {  // SA_1..SA_n, SB_1..SB_n after B
        const std::size_t n = k / h_.scale_block;
        std::vector<std::uint8_t> sc(2 * n);
        for (std::size_t j = 0; j < 2 * n; ++j) sc[j] = static_cast<std::uint8_t>(ops[2 * k + j]);
        const Result r = tc_model_->mma_scaled(
            h_.from, std::span(codes.data(), k), h_.to, std::span(codes.data() + k, k),
            h_.scale_format == MmaScaleFormat::ue8m0 ? FormatId::e8m0 : FormatId::e4m3, h_.scale_block,
            std::span(sc.data(), n), std::span(sc.data() + n, n), h_.accumulator, c);
        res[0] = r.code;
        return r.flags;
      }
      const Result r = tc_model_->mma(h_.from, std::span(codes.data(), k), h_.to, std::span(codes.data() + k, k),
                                      h_.accumulator, c);
      res[0] = r.code;
      return r.flags;  // not written to files: mma lines carry no flags
    }
  }
  return 0;
}

}  // namespace softmx::vec
