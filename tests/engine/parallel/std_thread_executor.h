// A small Executor on std::thread, for tests.
//
// ThreadSanitizer cannot see the synchronisation inside the Debian oneTBB
// library (it is not instrumented), so under TSan every handoff from the
// caller to a TBB worker looks like a race. This executor synchronises with
// std::mutex, std::condition_variable and std::atomic, which TSan
// understands, so the TSan run of the thread-invariance tests checks the
// engine's own parallel stages for races without false positives.

#ifndef ATOLL_TESTS_ENGINE_PARALLEL_STD_THREAD_EXECUTOR_H_
#define ATOLL_TESTS_ENGINE_PARALLEL_STD_THREAD_EXECUTOR_H_

#include <memory>

#include "atoll/executor.h"

namespace atl::testing {

/// `threads` threads in all: the caller plus threads - 1 workers.
std::unique_ptr<Executor> MakeStdThreadExecutor(int32_t threads);

/// True in a ThreadSanitizer build.
constexpr bool kThreadSanitizer =
#if defined(__SANITIZE_THREAD__)
    true;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
    true;
#else
    false;
#endif
#else
    false;
#endif

}  // namespace atl::testing

#endif  // ATOLL_TESTS_ENGINE_PARALLEL_STD_THREAD_EXECUTOR_H_
