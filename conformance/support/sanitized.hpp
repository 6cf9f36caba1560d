// conformance/support/sanitized.hpp: whether this test binary is built with AddressSanitizer
// (scripts/test-sanitized.sh), for tests whose large cases only repeat, at many times the cost
// under the sanitizer, what their small cases already drive through the same code: the release
// run (scripts/test.sh) runs them whole.
#pragma once

namespace softmx::testing {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
#else
inline constexpr bool kSanitized = false;
#endif

}  // namespace softmx::testing
