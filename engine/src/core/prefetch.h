// Atoll — asking the memory system for an object's cache lines ahead of use.
//
// A server's tick thread steps the worlds it hosts one after another, so
// each world finds its own bodies, shapes and contacts out of the cache
// (atoll-bench turns measures that). The loops that walk them by index ask
// for the lines of an element a few iterations ahead.

#ifndef ATOLL_CORE_PREFETCH_H_
#define ATOLL_CORE_PREFETCH_H_

#include <cstddef>

namespace atl {

/// Asks for every cache line of *p (an element of an array need not start
/// on a line, so the last byte's line too). A hint only: never changes a
/// result.
template <typename T>
inline void PrefetchLines(const T* p) {
  const char* const bytes = reinterpret_cast<const char*>(p);
  for (size_t at = 0; at < sizeof(T); at += 64) __builtin_prefetch(bytes + at);
  __builtin_prefetch(bytes + sizeof(T) - 1);
}

}  // namespace atl

#endif  // ATOLL_CORE_PREFETCH_H_
