// Atoll — invariant checks.

#ifndef ATOLL_ASSERT_H_
#define ATOLL_ASSERT_H_

namespace atl::internal {
/// Prints the failed condition with its location and aborts.
[[noreturn]] void AssertFailed(const char* condition, const char* file,
                               int line);
}  // namespace atl::internal

/// Checks an internal invariant. Unlike assert() it stays on in optimized
/// builds (the release preset is RelWithDebInfo with asserts on): a broken
/// invariant in a deterministic simulation is better stopped than replayed.
/// Expected failures (bad user input) return absl::Status instead.
#define ATOLL_ASSERT(condition)                                      \
  ((condition) ? static_cast<void>(0)                                \
               : ::atl::internal::AssertFailed(#condition, __FILE__, \
                                                 __LINE__))

#endif  // ATOLL_ASSERT_H_
