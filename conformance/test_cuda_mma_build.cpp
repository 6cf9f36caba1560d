// conformance/test_cuda_mma_build.cpp: the tensor-core capture's CUDA source
// (tools/cuda/mma/mma_device.cu, one translation unit) compiles for sm_100a and sm_120a with
// the nvcc this build found, ptxas accepts the PTX, and the PTX holds exactly the instruction
// forms the capture promises for that target (so that a guard that silently dropped a form would
// fail here, not on the day a Blackwell GPU is lent):
//   sm_100a: the five tcgen05.mma forms (.kind::f8f6f4, .kind::mxf8f6f4 1X, .kind::mxf4 2X,
//            .kind::mxf4nvf4 2X and 4X), the eight FP8 mma.sync forms, no sm_120 form;
//   sm_120a: the 25 mma.sync .kind::f8f6f4 and 25 .kind::mxf8f6f4 pairs, the FP4 kinds (with
//            .scale_vec::4X .ue8m0 only from CUDA 13.1, PTX ISA 9.1), the FP8 forms, no tcgen05.
// Skipped, saying why, where no nvcc was found or the CUDA programs are not configured.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "support/cli_run.hpp"

namespace softmx {
namespace {

struct Counts {
  int tcgen05 = 0, sync_fp8 = 0, sync_f8f6f4 = 0, sync_mxf8f6f4 = 0, sync_fp4 = 0, sync_fp4_4x_ue8m0 = 0;
};

Counts count_forms(const std::string& ptx_path) {
  std::ifstream in(ptx_path);
  Counts c;
  for (std::string line; std::getline(in, line);) {
    const std::size_t at = line.find_first_not_of(" \t");
    if (at == std::string::npos) continue;
    const std::string s = line.substr(at);
    if (s.rfind("tcgen05.mma.cta_group::1.", 0) == 0) ++c.tcgen05;
    if (s.rfind("mma.sync.aligned.", 0) != 0) continue;
    if (s.find(".kind::mxf8f6f4.block_scale") != std::string::npos) ++c.sync_mxf8f6f4;
    else if (s.find(".kind::f8f6f4.") != std::string::npos) ++c.sync_f8f6f4;
    else if (s.find("m16n8k64") != std::string::npos) {
      ++c.sync_fp4;
      if (s.find("scale_vec::4X.f32.e2m1.e2m1.f32.ue8m0") != std::string::npos) ++c.sync_fp4_4x_ue8m0;
    } else if (s.find("m16n8k32.row.col.f") != std::string::npos) ++c.sync_fp8;
  }
  return c;
}

TEST(CudaMmaBuild, TheDeviceSourceCompilesForSm100aAndSm120a) {
  const std::string nvcc = SOFTMX_NVCC;
  if (nvcc.empty())
    GTEST_SKIP() << "not checked: " << SOFTMX_NVCC_SKIP_REASON
                 << " (tools/cuda/mma/mma_device.cu is compiled only where the CUDA toolkit is found)";
  const std::string src = std::string(SOFTMX_SOURCE_DIR) + "/tools/cuda/mma";
  const std::string out = std::string(SOFTMX_BINARY_DIR) + "/test-cuda-mma-build";
  std::filesystem::create_directories(out);
  const std::string ptxas = (std::filesystem::path(nvcc).parent_path() / "ptxas").string();
  const auto version = testing::run_shell("'" + nvcc + "' --version");
  ASSERT_EQ(version.status, 0) << version.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(version.out, m, std::regex("release ([0-9]+)\\.([0-9]+)"))) << version.out;
  const int major = std::stoi(m[1]), minor = std::stoi(m[2]);
  const bool ptx91 = major > 13 || (major == 13 && minor >= 1);

  for (const std::string target : {"100a", "120a"}) {
    const std::string ptx = out + "/mma_device_sm" + target + ".ptx";
    const auto c1 = testing::run_shell("'" + nvcc + "' -std=c++17 -I'" + src + "' -gencode=arch=compute_" + target + ",code=sm_" +
                                       target + " -ptx '" + src + "/mma_device.cu' -o '" + ptx + "'");
    ASSERT_EQ(c1.status, 0) << "nvcc for sm_" << target << ":\n" << c1.out << c1.err;
    const auto c2 = testing::run_shell("'" + ptxas + "' -arch=sm_" + target + " '" + ptx + "' -o '" + out + "/mma_device_sm" +
                                       target + ".cubin'");
    ASSERT_EQ(c2.status, 0) << "ptxas for sm_" << target << ":\n" << c2.out << c2.err;
    const Counts c = count_forms(ptx);
    EXPECT_EQ(c.sync_fp8, 8) << target;  // e4m3/e5m2 pairs x f32/f16
    if (target == "100a") {
      EXPECT_EQ(c.tcgen05, 5);
      EXPECT_EQ(c.sync_f8f6f4 + c.sync_mxf8f6f4 + c.sync_fp4, 0);
    } else {
      EXPECT_EQ(c.tcgen05, 0);
      EXPECT_EQ(c.sync_f8f6f4, 25);
      EXPECT_EQ(c.sync_mxf8f6f4, 25);
      EXPECT_EQ(c.sync_fp4, ptx91 ? 4 : 3);
      EXPECT_EQ(c.sync_fp4_4x_ue8m0, ptx91 ? 1 : 0);
    }
  }
}

}  // namespace
}  // namespace softmx
