// python/src/bind_dot.cpp: Dot along an axis and the matrix product of MX tensors, every
// output one dot_general() call (docs/BLOCKS.md 5) on every core.
//
// matmul runs dot_general per output. The batched GEMM of softmx/gemm.hpp (issue 17) computes
// the same outputs faster; this file switches to it once it is in the library.
#include <pybind11/stl.h>

#include <atomic>

#include "binding.hpp"
#include "softmx/parallel.hpp"

namespace softmx::py_binding {
namespace {

Context output_context(const std::optional<std::string>& round, const std::optional<std::string>& sat,
                       const std::string& tininess) {
  Context c;
  c.rounding = round ? rounding_arg("round", *round) : Rounding::rne;
  if (c.rounding == Rounding::rs) throw py::value_error("round='rs' is not available for dot products (no random bits per result)");
  // Unset: by_destination, none for the f32 result (IEEE overflow to Inf), as `softmx dot`.
  c.saturation = sat ? saturation_arg("sat", *sat) : Saturation::by_destination;
  c.tininess = tininess_arg(tininess);
  return c;
}

std::string shape_text(const std::vector<std::size_t>& s) {
  std::string t = "(";
  for (std::size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + (s.size() == 1 ? ",)" : ")");
}

/// C = A x B: A (M, K) blocked along K (scales (M, nb)), B (K, N) blocked along K (scales
/// (nb, N)). Returns (C as f32 codes (M, N), flags (M, N) or None, OR of the flags).
py::tuple matmul_arrays(const py::array& a_scales, const py::array& a_codes, const std::string& a_format,
                        const py::array& b_scales, const py::array& b_codes, const std::string& b_format,
                        std::size_t block, const std::string& acc, const std::optional<std::string>& round,
                        const std::optional<std::string>& sat, const std::string& tininess, bool want_flags,
                        long threads) {
  const FormatId fa = element_format_arg("a's format", a_format), fb = element_format_arg("b's format", b_format);
  const AccumulationModel& model = accumulation_arg(acc);
  const Context ctx = output_context(round, sat, tininess);
  for (const py::array* x : {&a_scales, &a_codes, &b_scales, &b_codes}) require_storage(*x, 1, "matmul operand");
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
  py::array c = new_array({M, N}, 4);
  py::object flags = py::none();
  Flags* fptr = nullptr;
  if (want_flags) {
    py::array f = new_array({M, N}, 1);
    fptr = static_cast<Flags*>(f.mutable_data());
    flags = f;
  }
  const auto* ac = static_cast<const std::uint8_t*>(a_codes.data());
  const auto* asc = static_cast<const std::uint8_t*>(a_scales.data());
  const auto* bc = static_cast<const std::uint8_t*>(b_codes.data());
  const auto* bsc = static_cast<const std::uint8_t*>(b_scales.data());
  auto* cp = static_cast<std::uint32_t*>(c.mutable_data());
  const unsigned nthreads = threads_arg(threads);
  std::atomic<unsigned> any{0};
  {
    py::gil_scoped_release release;
    check_codes(ac, M * K, fa, "a's codes");
    check_codes(bc, K * N, fb, "b's codes");
    // B's columns as rows (N, K), so that every block is a contiguous span.
    std::vector<std::uint8_t> bt(K * N);
    for (std::size_t t = 0; t < K; ++t)
      for (std::size_t j = 0; j < N; ++j) bt[j * K + t] = bc[t * N + j];
    std::vector<BlockRef> ra(M * nb), rb(N * nb);
    for (std::size_t i = 0; i < M; ++i)
      for (std::size_t b = 0; b < nb; ++b) {
        const std::size_t first = b * block, cnt = std::min(block, K - first);
        ra[i * nb + b] = BlockRef{fa, asc[i * nb + b], std::span(ac + i * K + first, cnt)};
      }
    for (std::size_t j = 0; j < N; ++j)
      for (std::size_t b = 0; b < nb; ++b) {
        const std::size_t first = b * block, cnt = std::min(block, K - first);
        rb[j * nb + b] = BlockRef{fb, bsc[b * N + j], std::span(bt.data() + j * K + first, cnt)};
      }
    parallel_ranges(M * N, nthreads, 16, 16, [&](std::size_t first, std::size_t last) {
      Flags f = 0;
      for (std::size_t o = first; o < last; ++o) {
        const std::size_t i = o / N, j = o % N;
        const Result r = dot_general(std::span(ra).subspan(i * nb, nb), std::span(rb).subspan(j * nb, nb), ctx, model);
        cp[o] = static_cast<std::uint32_t>(r.code);
        if (fptr) fptr[o] = r.flags;
        f |= r.flags;
      }
      any.fetch_or(f);
    });
  }
  return py::make_tuple(c, flags, any.load());
}

/// Dot along `axis` of two tensors of the same shape, each blocked along it: output (with the
/// axis removed) [o, n] = DotGeneral of the blocks of line (o, :, n) of A and of B.
py::tuple dot_arrays(const py::array& a_scales, const py::array& a_codes, const std::string& a_format,
                     const py::array& b_scales, const py::array& b_codes, const std::string& b_format, long axis,
                     std::size_t block, const std::string& acc, const std::optional<std::string>& round,
                     const std::optional<std::string>& sat, const std::string& tininess, bool want_flags, long threads) {
  const FormatId fa = element_format_arg("a's format", a_format), fb = element_format_arg("b's format", b_format);
  const AccumulationModel& model = accumulation_arg(acc);
  const Context ctx = output_context(round, sat, tininess);
  for (const py::array* x : {&a_scales, &a_codes, &b_scales, &b_codes}) require_storage(*x, 1, "dot operand");
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
  py::array c = new_array(oshape, 4);
  py::object flags = py::none();
  Flags* fptr = nullptr;
  if (want_flags) {
    py::array f = new_array(oshape, 1);
    fptr = static_cast<Flags*>(f.mutable_data());
    flags = f;
  }
  const auto* ac = static_cast<const std::uint8_t*>(a_codes.data());
  const auto* asc = static_cast<const std::uint8_t*>(a_scales.data());
  const auto* bc = static_cast<const std::uint8_t*>(b_codes.data());
  const auto* bsc = static_cast<const std::uint8_t*>(b_scales.data());
  auto* cp = static_cast<std::uint32_t*>(c.mutable_data());
  const unsigned nthreads = threads_arg(threads);
  std::atomic<unsigned> any{0};
  {
    py::gil_scoped_release release;
    check_codes(ac, lines * len, fa, "a's codes");
    check_codes(bc, lines * len, fb, "b's codes");
    parallel_ranges(lines, nthreads, std::max<std::size_t>(1, 4096 / std::max<std::size_t>(len, 1)), 16,
                    [&](std::size_t first, std::size_t last) {
                      std::vector<std::uint8_t> la(len), lb(len);
                      std::vector<BlockRef> ra(nb), rb(nb);
                      Flags f = 0;
                      for (std::size_t line = first; line < last; ++line) {
                        const std::size_t o = line / inner, n = line % inner;
                        for (std::size_t t = 0; t < len; ++t) {
                          la[t] = ac[(o * len + t) * inner + n];
                          lb[t] = bc[(o * len + t) * inner + n];
                        }
                        for (std::size_t b = 0; b < nb; ++b) {
                          const std::size_t i0 = b * block, cnt = std::min(block, len - i0);
                          ra[b] = BlockRef{fa, asc[(o * nb + b) * inner + n], std::span(la.data() + i0, cnt)};
                          rb[b] = BlockRef{fb, bsc[(o * nb + b) * inner + n], std::span(lb.data() + i0, cnt)};
                        }
                        const Result r = dot_general(ra, rb, ctx, model);
                        cp[line] = static_cast<std::uint32_t>(r.code);
                        if (fptr) fptr[line] = r.flags;
                        f |= r.flags;
                      }
                      any.fetch_or(f);
                    });
  }
  return py::make_tuple(c, flags, any.load());
}

}  // namespace

void bind_dot(py::module_& m) {
  m.def("matmul", &matmul_arrays, py::arg("a_scales"), py::arg("a_codes"), py::arg("a_format"), py::arg("b_scales"),
        py::arg("b_codes"), py::arg("b_format"), py::arg("block"), py::arg("acc"), py::arg("round"), py::arg("sat"),
        py::arg("tininess"), py::arg("flags"), py::arg("threads"));
  m.def("dot", &dot_arrays, py::arg("a_scales"), py::arg("a_codes"), py::arg("a_format"), py::arg("b_scales"),
        py::arg("b_codes"), py::arg("b_format"), py::arg("axis"), py::arg("block"), py::arg("acc"), py::arg("round"),
        py::arg("sat"), py::arg("tininess"), py::arg("flags"), py::arg("threads"));
}

}  // namespace softmx::py_binding
