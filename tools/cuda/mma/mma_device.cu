// tools/cuda/mma/mma_device.cu: the kernels of the mma capture (mma_device_api.hpp).
//
// mma.sync: one warp per tile; each lane packs its fragments from the tile's codes with
// fragment.hpp (the PTX ISA layouts) and runs one instruction. tcgen05.mma: one 128-thread CTA
// per tile, the single-CTA sequence of PTX ISA 9.2 section 9.7.16 (tcgen05):
//   1. the 128 threads zero A's and B's shared-memory tiles; threads 0..7 write case j's row of
//      A and column of B in the canonical K-major layout (tcgen05_layout.hpp); thread 0
//      initialises an mbarrier (count 1); fence.proxy.async.shared::cta makes these generic-
//      proxy writes visible to the tensor core (the async proxy), then a CTA barrier;
//   2. warp 0 allocates 128 columns of tensor memory (one allocation: D at column 0, scale_A at
//      32, scale_B at 64; a CTA that held one allocation while waiting for another could
//      deadlock against its neighbours on the SM);
//   3. every warp w stores its 32 lanes of C (tcgen05.st .32x32b.x8; zero except C[j][j]) and,
//      block-scaled, of scale_A and scale_B (.32x32b.x1), then tcgen05.wait::st;
//   4. tcgen05.fence::before_thread_sync, CTA barrier, tcgen05.fence::after_thread_sync (the
//      ordering of tcgen05 operations across threads, 9.7.16.6);
//   5. thread 0 issues the mma (enable-input-d = the form's enable_c) and tcgen05.commit
//      .mbarrier::arrive::one on the mbarrier; every thread waits for phase 0 to complete, then
//      tcgen05.fence::after_thread_sync;
//   6. warp 0 loads D's lanes 0..31 (.32x32b.x8: lane m gets D[m][0..7]) and lanes 0..7 write
//      D[j][j]; then fences, a barrier, and warp 0 frees the tensor memory and relinquishes the
//      allocation permit.
// Nothing here ran on a GPU when it was written (tools/cuda/README.md lists what is unverified).
#include <cuda_runtime.h>

#include <array>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>

#include "../device_probe.cuh"  // relative: the mma sources build with -I tools/cuda/mma only
#include "fragment.hpp"
#include "mma_device_api.hpp"
#include "tcgen05_layout.hpp"

// Which instruction families this device pass holds (ptxas's acceptance, probed with CUDA 13.0
// and recorded in tools/cuda/README.md):
//  - mma.sync FP8 m16n8k32: sm_89 and later;
//  - mma.sync .kind::f8f6f4 and the block-scaled kinds: the sm_120 family targets (sm_120f,
//    sm_120a, sm_121a: __CUDA_ARCH_FAMILY_SPECIFIC__ 1200 or 1210); .scale_vec::4X with .ue8m0
//    needs PTX ISA 9.1 (ptxas 13.0: "Illegal modifier '.scale_vec::4X'");
//  - tcgen05.mma: the arch-specific targets sm_100a, sm_103a, sm_110a (ptxas refuses the
//    block-scaled forms for sm_100f/110f and tcgen05 for every sm_120 target).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
#define SOFTMX_MMA_HAS_FP8 1
#endif
#if defined(__CUDA_ARCH_FAMILY_SPECIFIC__) && (__CUDA_ARCH_FAMILY_SPECIFIC__ == 1200 || __CUDA_ARCH_FAMILY_SPECIFIC__ == 1210)
#define SOFTMX_MMA_HAS_SM120 1
#if __CUDACC_VER_MAJOR__ > 13 || (__CUDACC_VER_MAJOR__ == 13 && __CUDACC_VER_MINOR__ >= 1)
#define SOFTMX_MMA_HAS_SM120_4X_UE8M0 1
#endif
#endif
#if defined(__CUDA_ARCH_SPECIFIC__) && \
    (__CUDA_ARCH_SPECIFIC__ == 1000 || __CUDA_ARCH_SPECIFIC__ == 1030 || __CUDA_ARCH_SPECIFIC__ == 1100)
#define SOFTMX_MMA_HAS_TCGEN05 1
#endif

namespace softmx::mma_capture {
namespace {

namespace frag = softmx::mma_frag;
namespace tc = softmx::tc05;

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string("softmx_capture_mma: ") + what + ": " + cudaGetErrorString(e));
}

template <class T>
struct DeviceBuffer {
  T* p = nullptr;
  explicit DeviceBuffer(std::size_t n) { check(cudaMalloc(&p, (n ? n : 1) * sizeof(T)), "cudaMalloc"); }
  ~DeviceBuffer() { cudaFree(p); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

/// The tile inputs on the device (mma_device_api.hpp, run_tiles).
struct Args {
  const std::uint8_t *a, *b, *sa, *sb;
  const std::uint32_t* c;
  std::uint32_t* d;
  int k, scales;
};

__global__ void probe_kernel(int* out) {
  cuda_probe::write_arch(out);
#if defined(__CUDA_ARCH__)
  unsigned f = 0;
#if defined(SOFTMX_MMA_HAS_FP8)
  f |= feature_bit(Feature::mma_fp8);
#endif
#if defined(SOFTMX_MMA_HAS_SM120)
  f |= feature_bit(Feature::mma_sm120);
#endif
#if defined(SOFTMX_MMA_HAS_SM120_4X_UE8M0)
  f |= feature_bit(Feature::mma_sm120_4x_ue8m0);
#endif
#if defined(SOFTMX_MMA_HAS_TCGEN05)
  f |= feature_bit(Feature::tcgen05);
#endif
  out[3] = static_cast<int>(f);
  out[4] = __CUDACC_VER_MAJOR__;
  out[5] = __CUDACC_VER_MINOR__;
#endif
}

// ---------------------------------------------------------------------------------------------
// mma.sync

// The A x B type strings of a pair of Elem indices (AT, BT) for a macro M(TA, TB).
#define SOFTMX_MMA_B(M, TA)                    \
  if constexpr (BT == 0) M(TA, "e4m3");        \
  else if constexpr (BT == 1) M(TA, "e5m2");   \
  else if constexpr (BT == 2) M(TA, "e3m2");   \
  else if constexpr (BT == 3) M(TA, "e2m3");   \
  else M(TA, "e2m1");
#define SOFTMX_MMA_AB(M)                                   \
  if constexpr (AT == 0) { SOFTMX_MMA_B(M, "e4m3") }       \
  else if constexpr (AT == 1) { SOFTMX_MMA_B(M, "e5m2") }  \
  else if constexpr (AT == 2) { SOFTMX_MMA_B(M, "e3m2") }  \
  else if constexpr (AT == 3) { SOFTMX_MMA_B(M, "e2m3") }  \
  else { SOFTMX_MMA_B(M, "e2m1") }

#define SOFTMX_MMA_OUT "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])
#define SOFTMX_MMA_IN_AB "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1])
#define SOFTMX_MMA_IN_C "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3])
#define SOFTMX_MMA_IN_SCALES "r"(sfa), "h"(kZero16), "h"(kZero16), "r"(sfb), "h"(kZero16), "h"(kZero16)
#define SOFTMX_MMA_OPERANDS_F32 "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13}"
#define SOFTMX_MMA_OPERANDS_SCALED SOFTMX_MMA_OPERANDS_F32 ", %14, {%15,%16}, %17, {%18,%19};"
// A block-scaled m16n8k64 FP4 mma.sync, its instruction named from "kind::" on; sets `done`.
#define SOFTMX_MMA_SCALED_K64(KIND_ETC)                                                                   \
  asm volatile("mma.sync.aligned.m16n8k64.row.col.kind::" KIND_ETC " " SOFTMX_MMA_OPERANDS_SCALED         \
               : SOFTMX_MMA_OUT                                                                           \
               : SOFTMX_MMA_IN_AB, SOFTMX_MMA_IN_C, SOFTMX_MMA_IN_SCALES);                                \
  done = true

// One instruction of kind K on (A type AT, B type BT), f16 or f32 C/D, scale type ST (0 none,
// 1 ue8m0, 2 ue4m3) with SV scales per row. Registers as the PTX ISA lays them out; f16 C/D as
// elements in the low halves of c[0..3] / d[0..3] (repacked into .f16x2 here).
template <Kind K, int AT, int BT, bool F16, int ST, int SV>
__device__ void mma_sync_op(std::uint32_t d[4], const std::uint32_t a[4], const std::uint32_t b[2], const std::uint32_t c[4],
                            std::uint32_t sfa, std::uint32_t sfb) {
  [[maybe_unused]] constexpr std::uint16_t kZero16 = 0;  // byte-id and thread-id selectors
  bool done = false;
  if constexpr (K == Kind::fp8) {
#if defined(SOFTMX_MMA_HAS_FP8)
#define SOFTMX_MMA_FP8_F32(TA, TB)                                                                               \
  asm volatile("mma.sync.aligned.m16n8k32.row.col.f32." TA "." TB ".f32 " SOFTMX_MMA_OPERANDS_F32 ";"            \
               : SOFTMX_MMA_OUT                                                                                  \
               : SOFTMX_MMA_IN_AB, SOFTMX_MMA_IN_C)
#define SOFTMX_MMA_FP8_F16(TA, TB)                                                                               \
  do {                                                                                                           \
    const std::uint32_t c01 = frag::pack_f16x2(c[0], c[1]), c23 = frag::pack_f16x2(c[2], c[3]);                  \
    std::uint32_t d01, d23;                                                                                      \
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f16." TA "." TB ".f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};" \
                 : "=r"(d01), "=r"(d23)                                                                          \
                 : SOFTMX_MMA_IN_AB, "r"(c01), "r"(c23));                                                        \
    d[0] = frag::f16x2_lo(d01), d[1] = frag::f16x2_hi(d01), d[2] = frag::f16x2_lo(d23), d[3] = frag::f16x2_hi(d23); \
  } while (0)
    if constexpr (AT <= 1 && BT <= 1) {
      if constexpr (F16) { SOFTMX_MMA_AB(SOFTMX_MMA_FP8_F16) }
      else { SOFTMX_MMA_AB(SOFTMX_MMA_FP8_F32) }
      done = true;
    }
#undef SOFTMX_MMA_FP8_F32
#undef SOFTMX_MMA_FP8_F16
#endif
  } else if constexpr (K == Kind::f8f6f4 && !F16) {
#if defined(SOFTMX_MMA_HAS_SM120)
#define SOFTMX_MMA_F8F6F4(TA, TB)                                                                                \
  asm volatile("mma.sync.aligned.m16n8k32.row.col.kind::f8f6f4.f32." TA "." TB ".f32 " SOFTMX_MMA_OPERANDS_F32 ";" \
               : SOFTMX_MMA_OUT                                                                                  \
               : SOFTMX_MMA_IN_AB, SOFTMX_MMA_IN_C)
    SOFTMX_MMA_AB(SOFTMX_MMA_F8F6F4)
    done = true;
#undef SOFTMX_MMA_F8F6F4
#endif
  } else if constexpr (K == Kind::mxf8f6f4 && !F16 && ST == 1 && SV == 1) {
#if defined(SOFTMX_MMA_HAS_SM120)
#define SOFTMX_MMA_MXF8F6F4(TA, TB)                                                                              \
  asm volatile("mma.sync.aligned.m16n8k32.row.col.kind::mxf8f6f4.block_scale.scale_vec::1X.f32." TA "." TB       \
               ".f32.ue8m0 " SOFTMX_MMA_OPERANDS_SCALED                                                          \
               : SOFTMX_MMA_OUT                                                                                  \
               : SOFTMX_MMA_IN_AB, SOFTMX_MMA_IN_C, SOFTMX_MMA_IN_SCALES)
    SOFTMX_MMA_AB(SOFTMX_MMA_MXF8F6F4)
    done = true;
#undef SOFTMX_MMA_MXF8F6F4
#endif
  } else if constexpr (K == Kind::mxf4 && !F16 && ST == 1 && SV == 2) {
#if defined(SOFTMX_MMA_HAS_SM120)
    SOFTMX_MMA_SCALED_K64("mxf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0");
#endif
  } else if constexpr (K == Kind::mxf4nvf4 && !F16 && ST == 1 && SV == 2) {
#if defined(SOFTMX_MMA_HAS_SM120)
    SOFTMX_MMA_SCALED_K64("mxf4nvf4.block_scale.scale_vec::2X.f32.e2m1.e2m1.f32.ue8m0");
#endif
  } else if constexpr (K == Kind::mxf4nvf4 && !F16 && ST == 2 && SV == 4) {
#if defined(SOFTMX_MMA_HAS_SM120)
    SOFTMX_MMA_SCALED_K64("mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue4m3");
#endif
  } else if constexpr (K == Kind::mxf4nvf4 && !F16 && ST == 1 && SV == 4) {
#if defined(SOFTMX_MMA_HAS_SM120_4X_UE8M0)  // PTX ISA 9.1: not assembled by this repository's CUDA 13.0
    SOFTMX_MMA_SCALED_K64("mxf4nvf4.block_scale.scale_vec::4X.f32.e2m1.e2m1.f32.ue8m0");
#endif
  }
  if (!done)  // never run: the host checks the features before launching
    for (int i = 0; i < 4; ++i) d[i] = 0xFFFFFFFFu;
  (void)a, (void)b, (void)c, (void)sfa, (void)sfb;
}

// One warp per tile (mma_file.hpp's placement: case j in row j of A, column j of B, C[j][j]).
template <Kind K, int AT, int BT, bool F16, int ST, int SV>
__global__ void mma_sync_kernel(Args g) {
  constexpr int kk = kind_k(K);
  constexpr int abits = elem_bits(static_cast<Elem>(AT)), bbits = elem_bits(static_cast<Elem>(BT));
  const int tile = blockIdx.x, lane = threadIdx.x;
  const std::uint8_t* a = g.a + static_cast<std::size_t>(tile) * 8 * kk;
  const std::uint8_t* b = g.b + static_cast<std::size_t>(tile) * 8 * kk;
  std::uint32_t ra[4] = {0, 0, 0, 0}, rb[2] = {0, 0}, rc[4], rd[4], sfa = 0, sfb = 0;
  if constexpr (kk == 32) {
    for (int i = 0; i < 16; ++i) {
      const frag::RowCol p = frag::a_element(lane, i);
      const std::uint32_t code = p.row < 8 ? a[p.row * 32 + p.col] : 0;
      ra[i / 4] |= std::uint32_t{frag::container_byte(K == Kind::fp8 ? 8 : abits, code)} << (8 * (i % 4));
    }
    for (int i = 0; i < 8; ++i) {
      const frag::RowCol p = frag::b_element(lane, i);
      rb[i / 4] |= std::uint32_t{frag::container_byte(K == Kind::fp8 ? 8 : bbits, b[p.col * 32 + p.row])} << (8 * (i % 4));
    }
  } else {
    for (int i = 0; i < 32; ++i) {
      const frag::RowCol p = frag::a_element_k64(lane, i);
      const std::uint32_t code = p.row < 8 ? a[p.row * 64 + p.col] : 0;
      ra[i / 8] |= (code & 0xFu) << (4 * (i % 8));
    }
    for (int i = 0; i < 16; ++i) {
      const frag::RowCol p = frag::b_element_k64(lane, i);
      rb[i / 8] |= (std::uint32_t{b[p.col * 64 + p.row]} & 0xFu) << (4 * (i % 8));
    }
  }
  for (int i = 0; i < 4; ++i) {
    const frag::RowCol p = frag::c_element(lane, i);
    rc[i] = p.row == p.col && p.row < 8 ? g.c[tile * 8 + p.row] : 0;
  }
  if constexpr (SV > 0) {
    std::uint8_t s[4] = {0, 0, 0, 0}, t[4] = {0, 0, 0, 0};
    const int row = frag::scale_a_row(lane), col = frag::scale_b_col(lane);
    for (int j = 0; j < SV; ++j) {
      if (row < 8) s[j] = g.sa[(tile * 8 + row) * SV + j];
      t[j] = g.sb[(tile * 8 + col) * SV + j];
    }
    sfa = frag::scale_register(s, SV);
    sfb = frag::scale_register(t, SV);
  }
  mma_sync_op<K, AT, BT, F16, ST, SV>(rd, ra, rb, rc, sfa, sfb);
  for (int i = 0; i < 4; ++i) {
    const frag::RowCol p = frag::c_element(lane, i);
    if (p.row == p.col && p.row < 8) g.d[tile * 8 + p.row] = rd[i];
  }
}

// ---------------------------------------------------------------------------------------------
// tcgen05.mma

#if defined(SOFTMX_MMA_HAS_TCGEN05)
__device__ inline std::uint32_t smem_addr(const void* p) { return static_cast<std::uint32_t>(__cvta_generic_to_shared(p)); }
#endif

// One tcgen05.mma of kind K with SV scales per row (0: unscaled .kind::f8f6f4). Issued by one
// thread.
template <Kind K, int SV>
__device__ void tc05_issue(std::uint32_t d_tmem, std::uint64_t adesc, std::uint64_t bdesc, std::uint32_t idesc,
                           std::uint32_t sfa_tmem, std::uint32_t sfb_tmem, std::uint32_t enable_d) {
#if defined(SOFTMX_MMA_HAS_TCGEN05)
#define SOFTMX_TC05_SCALED(OPCODE)                                                                     \
  asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %6, 0;\n\t" OPCODE " [%0], %1, %2, %3, [%4], [%5], p;\n\t}" \
               :                                                                                       \
               : "r"(d_tmem), "l"(adesc), "l"(bdesc), "r"(idesc), "r"(sfa_tmem), "r"(sfb_tmem), "r"(enable_d) \
               : "memory")
  if constexpr (K == Kind::f8f6f4) {
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.b32 p, %4, 0;\n\ttcgen05.mma.cta_group::1.kind::f8f6f4 [%0], %1, %2, %3, p;\n\t}"
                 :
                 : "r"(d_tmem), "l"(adesc), "l"(bdesc), "r"(idesc), "r"(enable_d)
                 : "memory");
  } else if constexpr (K == Kind::mxf8f6f4 && SV == 1) {
    SOFTMX_TC05_SCALED("tcgen05.mma.cta_group::1.kind::mxf8f6f4.block_scale.scale_vec::1X");
  } else if constexpr (K == Kind::mxf4 && SV == 2) {
    SOFTMX_TC05_SCALED("tcgen05.mma.cta_group::1.kind::mxf4.block_scale.scale_vec::2X");
  } else if constexpr (K == Kind::mxf4nvf4 && SV == 2) {
    SOFTMX_TC05_SCALED("tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::2X");
  } else if constexpr (K == Kind::mxf4nvf4 && SV == 4) {
    SOFTMX_TC05_SCALED("tcgen05.mma.cta_group::1.kind::mxf4nvf4.block_scale.scale_vec::4X");
  }
#undef SOFTMX_TC05_SCALED
#else
  (void)d_tmem, (void)adesc, (void)bdesc, (void)idesc, (void)sfa_tmem, (void)sfb_tmem, (void)enable_d;
#endif
}

template <Kind K, int SV>
__global__ void __launch_bounds__(128) tc05_kernel(Args g, std::uint32_t idesc, int a_packing, int b_packing, int f16, int enable_c) {
#if defined(SOFTMX_MMA_HAS_TCGEN05)
  __shared__ alignas(128) std::uint8_t smem_a[tc::kABytes];
  __shared__ alignas(128) std::uint8_t smem_b[tc::kBBytes];
  __shared__ std::uint32_t tmem_base;
  __shared__ alignas(8) std::uint64_t mbar;
  const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32, tile = blockIdx.x;
  constexpr int kCols = 128, kColSfa = 32, kColSfb = 64;

  // 1. A and B in shared memory; the mbarrier.
  for (int o = tid; o < tc::kABytes; o += 128) smem_a[o] = 0;
  for (int o = tid; o < tc::kBBytes; o += 128) smem_b[o] = 0;
  __syncthreads();
  if (tid < 8) {
    std::uint8_t codes[64], row[tc::kKBytes];
    const std::uint8_t* a = g.a + static_cast<std::size_t>(tile * 8 + tid) * g.k;
    const std::uint8_t* b = g.b + static_cast<std::size_t>(tile * 8 + tid) * g.k;
    for (int k = 0; k < g.k; ++k) codes[k] = a[k];
    tc::encode_row(codes, static_cast<tc::Packing>(a_packing), row);
    for (int kb = 0; kb < tc::kKBytes; ++kb) smem_a[tc::smem_offset(tid, kb)] = row[kb];
    for (int k = 0; k < g.k; ++k) codes[k] = b[k];
    tc::encode_row(codes, static_cast<tc::Packing>(b_packing), row);
    for (int kb = 0; kb < tc::kKBytes; ++kb) smem_b[tc::smem_offset(tid, kb)] = row[kb];
  }
  if (tid == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&mbar)) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();

  // 2. Tensor memory: one allocation of 128 columns by warp 0.
  if (warp == 0)
    asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], %1;" ::"r"(smem_addr(&tmem_base)), "r"(kCols)
                 : "memory");
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  const std::uint32_t base = tmem_base;
  const std::uint32_t lanes = static_cast<std::uint32_t>(warp * 32) << 16;

  // 3. C (D's initial value) and the scales, each warp its 32 lanes.
  const int m = warp * 32 + lane;
  std::uint32_t cv[8];
  for (int n = 0; n < 8; ++n) cv[n] = enable_c && m < 8 && n == m ? g.c[tile * 8 + m] : 0;
  asm volatile("tcgen05.st.sync.aligned.32x32b.x8.b32 [%0], {%1, %2, %3, %4, %5, %6, %7, %8};" ::"r"(base + lanes), "r"(cv[0]),
               "r"(cv[1]), "r"(cv[2]), "r"(cv[3]), "r"(cv[4]), "r"(cv[5]), "r"(cv[6]), "r"(cv[7])
               : "memory");
  if constexpr (SV > 0) {
    std::uint8_t s[4] = {0, 0, 0, 0}, t[4] = {0, 0, 0, 0};
    const int n = tc::scale_b_col_of_lane(m);
    for (int j = 0; j < SV; ++j) {
      if (m < 8) s[j] = g.sa[(tile * 8 + m) * SV + j];
      t[j] = g.sb[(tile * 8 + n) * SV + j];
    }
    asm volatile("tcgen05.st.sync.aligned.32x32b.x1.b32 [%0], {%1};" ::"r"(base + lanes + kColSfa), "r"(frag::scale_register(s, SV))
                 : "memory");
    asm volatile("tcgen05.st.sync.aligned.32x32b.x1.b32 [%0], {%1};" ::"r"(base + lanes + kColSfb), "r"(frag::scale_register(t, SV))
                 : "memory");
  }
  asm volatile("tcgen05.wait::st.sync.aligned;" ::: "memory");
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");

  // 5. The mma, its commit, and the wait for it.
  if (tid == 0) {
    const std::uint64_t adesc = tc::smem_descriptor(smem_addr(smem_a)), bdesc = tc::smem_descriptor(smem_addr(smem_b));
    tc05_issue<K, SV>(base, adesc, bdesc, idesc, base + kColSfa, base + kColSfb, enable_c ? 1u : 0u);
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" ::"r"(smem_addr(&mbar))
                 : "memory");
  }
  std::uint32_t done = 0;
  while (!done)
    asm volatile("{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(done)
                 : "r"(smem_addr(&mbar)), "r"(0u)
                 : "memory");
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");

  // 6. D's lanes 0..31 by warp 0; D[j][j] out; free the tensor memory.
  if (warp == 0) {
    std::uint32_t r[8];
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x8.b32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7])
                 : "r"(base)
                 : "memory");
    asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
    std::uint32_t mine = 0;
    for (int n = 0; n < 8; ++n) mine = n == lane ? r[n] : mine;
    if (lane < 8) g.d[tile * 8 + lane] = f16 ? mine & 0xFFFFu : mine;
  }
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  if (warp == 0) {
    asm volatile("tcgen05.dealloc.cta_group::1.sync.aligned.b32 %0, %1;" ::"r"(base), "r"(kCols) : "memory");
    asm volatile("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned;" ::: "memory");
  }
#else
  (void)g, (void)idesc, (void)a_packing, (void)b_packing, (void)f16, (void)enable_c;
#endif
}

// ---------------------------------------------------------------------------------------------
// Dispatch: the runtime form to its kernel instantiation.

using Launch = void (*)(const Args&, int tiles, const DeviceForm& f);

template <Kind K, int AT, int BT, bool F16, int ST, int SV>
void launch_sync(const Args& g, int tiles, const DeviceForm&) {
  mma_sync_kernel<K, AT, BT, F16, ST, SV><<<tiles, 32>>>(g);
}
template <Kind K, int SV>
void launch_tc05(const Args& g, int tiles, const DeviceForm& f) {
  const int ap = static_cast<int>(tc::packing_of(f.kind, f.a)), bp = static_cast<int>(tc::packing_of(f.kind, f.b));
  tc05_kernel<K, SV><<<tiles, 128>>>(g, tc::instruction_descriptor(f), ap, bp, f.f16 ? 1 : 0, f.enable_c ? 1 : 0);
}

template <Kind K, bool F16, int ST, int SV, std::size_t... I>
constexpr std::array<Launch, sizeof...(I)> pair_table(std::index_sequence<I...>) {
  return {&launch_sync<K, static_cast<int>(I / kElemCount), static_cast<int>(I % kElemCount), F16, ST, SV>...};
}
constexpr auto kPairs = std::make_index_sequence<kElemCount * kElemCount>{};
const auto kFp8F32 = pair_table<Kind::fp8, false, 0, 0>(kPairs);
const auto kFp8F16 = pair_table<Kind::fp8, true, 0, 0>(kPairs);
const auto kF8f6f4 = pair_table<Kind::f8f6f4, false, 0, 0>(kPairs);
const auto kMxf8f6f4 = pair_table<Kind::mxf8f6f4, false, 1, 1>(kPairs);

Launch find_launch(const DeviceForm& f) {
  const std::size_t pair = static_cast<std::size_t>(f.a) * kElemCount + static_cast<std::size_t>(f.b);
  const bool ue8m0 = f.scale == ScaleType::ue8m0, ue4m3 = f.scale == ScaleType::ue4m3;
  if (f.engine == Engine::mma_sync) {
    switch (f.kind) {
      case Kind::fp8:
        if (elem_bits(f.a) == 8 && elem_bits(f.b) == 8) return f.f16 ? kFp8F16[pair] : kFp8F32[pair];
        break;
      case Kind::f8f6f4:
        if (!f.f16) return kF8f6f4[pair];
        break;
      case Kind::mxf8f6f4:
        if (!f.f16 && ue8m0 && f.scale_vec == 1) return kMxf8f6f4[pair];
        break;
      case Kind::mxf4:
        if (!f.f16 && ue8m0 && f.scale_vec == 2) return &launch_sync<Kind::mxf4, 4, 4, false, 1, 2>;
        break;
      case Kind::mxf4nvf4:
        if (f.f16) break;
        if (ue8m0 && f.scale_vec == 2) return &launch_sync<Kind::mxf4nvf4, 4, 4, false, 1, 2>;
        if (ue4m3 && f.scale_vec == 4) return &launch_sync<Kind::mxf4nvf4, 4, 4, false, 2, 4>;
        if (ue8m0 && f.scale_vec == 4) return &launch_sync<Kind::mxf4nvf4, 4, 4, false, 1, 4>;
        break;
    }
    return nullptr;
  }
  switch (f.kind) {
    case Kind::f8f6f4: return &launch_tc05<Kind::f8f6f4, 0>;
    case Kind::mxf8f6f4: return ue8m0 && f.scale_vec == 1 && !f.f16 ? &launch_tc05<Kind::mxf8f6f4, 1> : nullptr;
    case Kind::mxf4: return ue8m0 && f.scale_vec == 2 && !f.f16 ? &launch_tc05<Kind::mxf4, 2> : nullptr;
    case Kind::mxf4nvf4:
      if (f.f16) return nullptr;
      if (f.scale_vec == 2 && ue8m0) return &launch_tc05<Kind::mxf4nvf4, 2>;
      if (f.scale_vec == 4 && (ue8m0 || ue4m3)) return &launch_tc05<Kind::mxf4nvf4, 4>;
      return nullptr;
    case Kind::fp8: return nullptr;
  }
  return nullptr;
}

}  // namespace

MmaDeviceInfo query_mma_device() {
  MmaDeviceInfo d;
  const auto got = cuda_probe::query_device<6, DeviceBuffer>(d, probe_kernel, check, "softmx_capture_mma: no CUDA device");
  d.features = static_cast<std::uint32_t>(got[3]);
  d.nvcc_major = got[4];
  d.nvcc_minor = got[5];
  return d;
}

std::vector<std::uint32_t> run_tiles(const DeviceForm& f, int tiles, int k, int scales, const std::vector<std::uint8_t>& a,
                                     const std::vector<std::uint8_t>& b, const std::vector<std::uint8_t>& sa,
                                     const std::vector<std::uint8_t>& sb, const std::vector<std::uint32_t>& c) {
  const Launch launch = find_launch(f);
  if (!launch) throw std::logic_error("softmx_capture_mma: no kernel for this form");
  std::vector<std::uint32_t> d(static_cast<std::size_t>(tiles) * 8, 0);
  if (tiles == 0) return d;
  DeviceBuffer<std::uint8_t> da(a.size()), db(b.size()), dsa(sa.size()), dsb(sb.size());
  DeviceBuffer<std::uint32_t> dc(c.size()), dd(d.size());
  check(cudaMemcpy(da.p, a.data(), a.size(), cudaMemcpyHostToDevice), "cudaMemcpy A");
  check(cudaMemcpy(db.p, b.data(), b.size(), cudaMemcpyHostToDevice), "cudaMemcpy B");
  if (!sa.empty()) check(cudaMemcpy(dsa.p, sa.data(), sa.size(), cudaMemcpyHostToDevice), "cudaMemcpy scale_A");
  if (!sb.empty()) check(cudaMemcpy(dsb.p, sb.data(), sb.size(), cudaMemcpyHostToDevice), "cudaMemcpy scale_B");
  check(cudaMemcpy(dc.p, c.data(), c.size() * 4, cudaMemcpyHostToDevice), "cudaMemcpy C");
  check(cudaMemset(dd.p, 0xFF, d.size() * 4), "cudaMemset D");
  const Args g{da.p, db.p, dsa.p, dsb.p, dc.p, dd.p, k, scales};
  launch(g, tiles, f);
  check(cudaGetLastError(), "kernel launch");
  check(cudaDeviceSynchronize(), "kernel");
  check(cudaMemcpy(d.data(), dd.p, d.size() * 4, cudaMemcpyDeviceToHost), "cudaMemcpy D");
  return d;
}

}  // namespace softmx::mma_capture
