// conformance/support/sanitized.hpp: whether this test binary is built with AddressSanitizer
// (scripts/test-sanitized.sh). Tests read it where the sanitizer changes what can run: it reserves
// terabytes of address space for its shadow memory, so a binary cannot start under a `ulimit -v`
// limit (support/cli_run.hpp's users); and large cases that only repeat, at many times the cost,
// what the small ones already drive through the same code take the small ones alone there (the
// release run, scripts/test.sh, runs them whole).
#pragma once

namespace softmx::testing {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif
#else
inline constexpr bool kAddressSanitizer = false;
#endif

}  // namespace softmx::testing
