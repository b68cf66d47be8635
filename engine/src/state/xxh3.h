// Atoll — XXH3-64 of snapshot bytes, at the widest vectors the CPU has.

#ifndef ATOLL_STATE_XXH3_H_
#define ATOLL_STATE_XXH3_H_

#include <xxhash.h>

#include <cstddef>
#include <cstdint>

#if defined(__x86_64__)
// libxxhash's run-time dispatch (SSE2, AVX2 or AVX-512, chosen once). XXH3
// is defined on bytes, not on the vector width: every path returns the same
// value, so the state hash does not depend on the CPU.
#include <xxh_x86dispatch.h>
#endif

namespace atl {

inline uint64_t Xxh3(const void* bytes, size_t size) { return XXH3_64bits(bytes, size); }

}  // namespace atl

#endif  // ATOLL_STATE_XXH3_H_
