// python/src/bind_dot.cpp: the matrix product and the dot along an axis of MX tensors, both
// through the library's GEMM (softmx/gemm.hpp, the entry point of `softmx gemm-golden` and
// `softmx dot`): gemm() for matmul, dot_pairs() for dot. The library checks the operands,
// picks the vector kernel for the accumulation model (exact, fp32-sequential, the tensor-core
// models with addend_in_group) or runs dot_general() per output where no kernel decides
// (every other model, specials, f32's range edges), on its own threads; the results are
// dot_general()'s bit for bit, with the addend C and the f16 / bf16 destinations too
// (GemmOptions::addend, to). This file only translates arguments, with the GIL released.
#include <cstring>
#include <pybind11/stl.h>

#include <span>

#include "binding.hpp"
#include "softmx/gemm.hpp"

namespace softmx::py_binding {
namespace {

/// The GEMM options of matmul and dot: model `acc`, the destination `to` (f32, f16, bf16) and
/// the output context from round, sat and tininess (unset sat: by_destination, none for those
/// destinations: IEEE overflow to Inf, as `softmx dot`), on `threads` threads (0: every core).
GemmOptions gemm_options(const std::string& acc, const std::optional<std::string>& round,
                         const std::optional<std::string>& sat, const std::string& tininess, long threads,
                         const std::string& to) {
  GemmOptions o;
  if (to != "f32" && to != "f16" && to != "bf16")
    throw py::value_error("to must be 'f32', 'f16' or 'bf16' (the format of the result and of c), got '" + to + "'");
  o.to = to == "f32" ? FormatId::f32 : to == "f16" ? FormatId::f16 : FormatId::bf16;
  o.model = &accumulation_arg(acc);
  o.out.rounding = round ? rounding_arg("round", *round) : Rounding::rne;
  if (o.out.rounding == Rounding::rs)
    throw py::value_error("round='rs' is not available for dot products (no random bits per result)");
  o.out.saturation = sat ? saturation_arg("sat", *sat) : Saturation::by_destination;
  o.out.tininess = tininess_arg(tininess);
  o.threads = threads_arg(threads);
  return o;
}

/// How the GEMM reads the scales of MX arrays quantized with scale format `spec` (their
/// MXArray.scale_format): E8M0 or UE4M3 (ue4m3 / e4m3) through GemmOperand::scale_format, for
/// the kernels and the models that read them; any other (ue5m3, bf16, f32, ...) through
/// GemmOperand::block_scale_format (exact and fp32-sequential, the reference per output).
struct GemmScales {
  ScaleFormat format;     // outlives the GEMM calls that read it
  std::size_t bytes = 1;  // per scale code

  GemmOperand operator()(GemmOperand o) const { return with_scale_format(o, format); }
};

GemmScales gemm_scale_arg(const std::string& what, const std::string& spec) {
  const Format f = format_spec_arg("scale_format", spec);
  if (auto why = mx_scale_reason(f)) throw py::value_error(what + ": scale_format '" + spec + "': " + *why);
  const ScaleFormat sf(f);
  return GemmScales{sf, sf.code_bytes()};
}

std::string shape_text(const std::vector<std::size_t>& s) {
  std::string t = "(";
  for (std::size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + (s.size() == 1 ? ",)" : ")");
}

std::span<const std::uint8_t> bytes_of(const py::array& a) {
  return {static_cast<const std::uint8_t*>(a.data()), static_cast<std::size_t>(a.size()) * static_cast<std::size_t>(a.itemsize())};
}

/// The addends: c, when given, is C as uint32 codes of the destination, one per output in the
/// outputs' order (the Python layer broadcasts and converts it); the library checks the codes.
std::span<const std::uint32_t> addend_of(const std::optional<py::array>& c, std::size_t outputs) {
  if (!c) return {};
  require_storage(*c, 4, "c");
  if (static_cast<std::size_t>(c->size()) != outputs)
    throw py::value_error("c holds " + std::to_string(c->size()) + " codes; the result has " + std::to_string(outputs));
  return {static_cast<const std::uint32_t*>(c->data()), outputs};
}

/// The outputs of matmul and dot: codes of `shape` (f32, or f16/bf16 in uint32 items: the
/// Python layer narrows them) and, when asked, their flags (uint8).
struct Outputs {
  py::array c;
  py::object flags = py::none();
  std::span<std::uint32_t> cs;
  std::span<Flags> fs;  // empty unless asked for

  Outputs(const std::vector<std::size_t>& shape, bool want_flags) : c(new_array(shape, 4)) {
    cs = {static_cast<std::uint32_t*>(c.mutable_data()), static_cast<std::size_t>(c.size())};
    if (want_flags) {
      py::array f = new_array(shape, 1);
      fs = {static_cast<Flags*>(f.mutable_data()), static_cast<std::size_t>(f.size())};
      flags = f;
    }
  }
  /// (C as f32 codes, flags or None, the OR of the flags).
  py::tuple result(Flags any) const { return py::make_tuple(c, flags, static_cast<unsigned>(any)); }
};

/// Runs f() without the GIL. (The library's std::invalid_argument reaches Python as
/// ValueError through pybind11's own translation.)
template <class F>
Flags without_gil(F f) {
  py::gil_scoped_release release;
  return f();
}

/// C = A x B: A (M, K) blocked along K (scales (M, nb)), B (K, N) blocked along K (scales
/// (nb, N)), one gemm() call. Returns Outputs::result.
py::tuple matmul_arrays(const py::array& a_scales, const py::array& a_codes, const std::string& a_format,
                        const py::array& b_scales, const py::array& b_codes, const std::string& b_format,
                        std::size_t block, const std::string& acc, const std::optional<std::string>& round,
                        const std::optional<std::string>& sat, const std::string& tininess, bool want_flags,
                        long threads, const std::string& scale_format, const std::string& to,
                        const std::optional<py::array>& c) {
  const Format fa = mx_element_arg("a's format", a_format), fb = mx_element_arg("b's format", b_format);
  const GemmScales sf = gemm_scale_arg("matmul", scale_format);
  GemmOptions opt = gemm_options(acc, round, sat, tininess, threads, to);
  for (const py::array* x : {&a_codes, &b_codes}) require_storage(*x, 1, "matmul operand");
  for (const py::array* x : {&a_scales, &b_scales}) require_storage(*x, sf.bytes, "matmul scales");
  const auto as = shape_of(a_codes), bs = shape_of(b_codes);
  if (as.size() != 2 || bs.size() != 2) throw py::value_error("matmul: expected 2-d operands");
  const std::size_t M = as[0], K = as[1], N = bs[1];
  if (bs[0] != K)
    throw py::value_error("matmul: a is " + shape_text(as) + " and b is " + shape_text(bs) +
                          ": a's columns must match b's rows (K)");
  if (block == 0) throw py::value_error("matmul: the block size must be at least 1");
  const std::size_t nb = (K + block - 1) / block;
  if (shape_of(a_scales) != std::vector<std::size_t>{M, nb} || shape_of(b_scales) != std::vector<std::size_t>{nb, N})
    throw py::value_error("matmul: the scales must be (M, ceil(K / block)) = " + shape_text({M, nb}) + " for a and " +
                          shape_text({nb, N}) + " for b, got " + shape_text(shape_of(a_scales)) + " and " +
                          shape_text(shape_of(b_scales)));
  if (K == 0 && M * N != 0) throw py::value_error("matmul: K = 0 (a dot product needs at least one block)");
  Outputs out({M, N}, want_flags);
  opt.addend = addend_of(c, M * N);
  if (M * N == 0) return out.result(0);  // gemm() takes at least one vector a side
  const GemmOperand a = sf(gemm_rows(fa, M, K, block, bytes_of(a_codes), bytes_of(a_scales)));
  const GemmOperand b = sf(gemm_columns(fb, K, N, block, bytes_of(b_codes), bytes_of(b_scales)));
  return out.result(without_gil([&] { return gemm(a, b, opt, out.cs, out.fs); }));
}

/// Dot along `axis` of two tensors of the same shape, each blocked along it: output (with the
/// axis removed) [o, n] = DotGeneral of the blocks of line (o, :, n) of A and of B, one
/// dot_pairs() call. The lines are read in place when the axis is the last (rows) or the first
/// (columns); otherwise they are gathered into rows first (a copy of the codes and scales).
py::tuple dot_arrays(const py::array& a_scales, const py::array& a_codes, const std::string& a_format,
                     const py::array& b_scales, const py::array& b_codes, const std::string& b_format, long axis,
                     std::size_t block, const std::string& acc, const std::optional<std::string>& round,
                     const std::optional<std::string>& sat, const std::string& tininess, bool want_flags, long threads,
                     const std::string& scale_format, const std::string& to, const std::optional<py::array>& c) {
  const Format fa = mx_element_arg("a's format", a_format), fb = mx_element_arg("b's format", b_format);
  const GemmScales scaled = gemm_scale_arg("dot", scale_format);
  GemmOptions opt = gemm_options(acc, round, sat, tininess, threads, to);
  for (const py::array* x : {&a_codes, &b_codes}) require_storage(*x, 1, "dot operand");
  for (const py::array* x : {&a_scales, &b_scales}) require_storage(*x, scaled.bytes, "dot scales");
  const auto shape = shape_of(a_codes);
  if (shape_of(b_codes) != shape)
    throw py::value_error("dot: a is " + shape_text(shape) + " and b is " + shape_text(shape_of(b_codes)) +
                          ": the shapes must be equal");
  if (shape.empty() || axis < 0 || static_cast<std::size_t>(axis) >= shape.size())
    throw py::value_error("dot: axis out of range");
  if (block == 0) throw py::value_error("dot: the block size must be at least 1");
  const auto ax = static_cast<std::size_t>(axis);
  std::size_t outer = 1, inner = 1;
  for (std::size_t d = 0; d < ax; ++d) outer *= shape[d];
  for (std::size_t d = ax + 1; d < shape.size(); ++d) inner *= shape[d];
  const std::size_t len = shape[ax], nb = (len + block - 1) / block;
  const auto sshape = scale_shape(shape, ax, block);
  if (shape_of(a_scales) != sshape || shape_of(b_scales) != sshape)
    throw py::value_error("dot: the scales must be " + shape_text(sshape));
  std::vector<std::size_t> oshape = shape;
  oshape.erase(oshape.begin() + static_cast<long>(ax));
  const std::size_t lines = outer * inner;
  if (len == 0 && lines != 0) throw py::value_error("dot: the axis has length 0 (a dot product needs at least one block)");
  Outputs out(oshape, want_flags);
  opt.addend = addend_of(c, lines);  // line o * inner + n is output (o, n): the outputs' order
  if (lines == 0) return out.result(0);
  return out.result(without_gil([&] {
    if (inner == 1)  // lines are rows (o, :)
      return dot_pairs(scaled(gemm_rows(fa, lines, len, block, bytes_of(a_codes), bytes_of(a_scales))),
                       scaled(gemm_rows(fb, lines, len, block, bytes_of(b_codes), bytes_of(b_scales))), opt, out.cs,
                       out.fs);
    if (outer == 1)  // lines are columns (:, n)
      return dot_pairs(scaled(gemm_columns(fa, len, lines, block, bytes_of(a_codes), bytes_of(a_scales))),
                       scaled(gemm_columns(fb, len, lines, block, bytes_of(b_codes), bytes_of(b_scales))), opt, out.cs,
                       out.fs);
    // Line (o, n) of an (outer, len, inner) tensor as row o * inner + n of a (lines, len) copy
    // (items of x.itemsize() bytes: codes, or scale codes of 1, 2 or 4 bytes).
    auto rows = [&](const py::array& x, std::size_t n) {
      const auto* p = static_cast<const std::uint8_t*>(x.data());
      const auto w = static_cast<std::size_t>(x.itemsize());
      std::vector<std::uint8_t> r(lines * n * w);
      for (std::size_t o = 0; o < outer; ++o)
        for (std::size_t t = 0; t < n; ++t)
          for (std::size_t i = 0; i < inner; ++i)
            std::memcpy(&r[((o * inner + i) * n + t) * w], &p[((o * n + t) * inner + i) * w], w);
      return r;
    };
    const auto ac = rows(a_codes, len), as = rows(a_scales, nb), bc = rows(b_codes, len), bs = rows(b_scales, nb);
    return dot_pairs(scaled(gemm_rows(fa, lines, len, block, ac, as)), scaled(gemm_rows(fb, lines, len, block, bc, bs)),
                     opt, out.cs, out.fs);
  }));
}

}  // namespace

void bind_dot(py::module_& m) {
  m.def("matmul", &matmul_arrays, py::arg("a_scales"), py::arg("a_codes"), py::arg("a_format"), py::arg("b_scales"),
        py::arg("b_codes"), py::arg("b_format"), py::arg("block"), py::arg("acc"), py::arg("round"), py::arg("sat"),
        py::arg("tininess"), py::arg("flags"), py::arg("threads"), py::arg("scale_format") = "e8m0",
        py::arg("to") = "f32", py::arg("c") = py::none());
  m.def("dot", &dot_arrays, py::arg("a_scales"), py::arg("a_codes"), py::arg("a_format"), py::arg("b_scales"),
        py::arg("b_codes"), py::arg("b_format"), py::arg("axis"), py::arg("block"), py::arg("acc"), py::arg("round"),
        py::arg("sat"), py::arg("tininess"), py::arg("flags"), py::arg("threads"), py::arg("scale_format") = "e8m0",
        py::arg("to") = "f32", py::arg("c") = py::none());
}

}  // namespace softmx::py_binding
