// conformance/test_examples.cpp: the worked example (examples/certify.sh) runs as documented:
// the correct stand-in device passes verify; the one with a planted fault (ties away from
// zero into e5m2) fails verify with the right report, and identify names the fault.
#include <gtest/gtest.h>

#include <string>

#include "support/cli_run.hpp"

namespace {

using softmx::testing::run_shell;
using softmx::testing::scratch_dir;

std::string certify(const std::string& device, const std::string& fmt, const std::string& tag) {
  return "SOFTMX='" + std::string(SOFTMX_CLI) + "' '" + SOFTMX_SOURCE_DIR + "/examples/certify.sh' '" + device + "' " + fmt +
         " '" + scratch_dir("examples") + "/" + tag + "'";
}

TEST(Examples, CorrectDevicePasses) {
  for (const char* fmt : {"e5m2", "e4m3"}) {
    const auto r = run_shell(certify(SOFTMX_STANDIN, fmt, std::string("good-") + fmt));
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("all match; flags not given, not compared"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("identify"), std::string::npos) << r.out;
  }
}

TEST(Examples, FaultyDeviceIsCaughtAndIdentified) {
  const auto r = run_shell(certify(SOFTMX_FAULTY, "e5m2", "faulty"));
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  // verify: mismatches, each a tie, attributed to ties-away (rna) by the report.
  EXPECT_NE(r.out.find("mismatches ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the device's result comes from: rna"), std::string::npos) << r.out;
  // identify: the best setting is rna and agrees everywhere, for f32 and f16 sources.
  std::size_t named = 0;
  for (std::size_t at = 0; (at = r.out.find("differs from the header: rounding rna instead of rne", at)) != std::string::npos; ++at)
    ++named;
  EXPECT_EQ(named, 2u) << r.out;
  EXPECT_NE(r.out.find("best: rna finite, dialect ocp: agrees on every case"), std::string::npos) << r.out;

  // e4m3 has no planted fault: the faulty device passes there.
  const auto e4 = run_shell(certify(SOFTMX_FAULTY, "e4m3", "faulty-e4m3"));
  EXPECT_EQ(e4.status, 0) << e4.out << e4.err;
}

}  // namespace
