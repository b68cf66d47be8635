#include "atoll/assert.h"

#include <cstdio>
#include <cstdlib>

namespace atl::internal {

void AssertFailed(const char* condition, const char* file, int line) {
  std::fprintf(stderr, "%s:%d: ATOLL_ASSERT(%s) failed\n", file, line,
               condition);
  std::fflush(stderr);
  std::abort();
}

}  // namespace atl::internal
