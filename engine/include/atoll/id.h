// Atoll — handles for engine objects.
//
// Objects live in pools and are named by index + generation, never by
// pointer: an id stays meaningful across snapshot save/restore and across
// machines, and a stale id (its object destroyed, the slot reused) is
// detected by its generation instead of touching freed memory.

#ifndef ATOLL_ID_H_
#define ATOLL_ID_H_

#include <cstdint>

namespace atl {

#define ATOLL_DEFINE_ID(Name)                                            \
  struct Name {                                                          \
    uint32_t index = 0;       /* slot in the world's pool */             \
    uint16_t world = 0;       /* which world made it */                  \
    uint16_t generation = 0;  /* 0 = null; bumped when a slot is reused */ \
    /** True unless this is the null id. Says nothing of liveness. */    \
    bool IsValid() const { return generation != 0; }                     \
    friend bool operator==(Name a, Name b) {                             \
      return a.index == b.index && a.world == b.world &&                 \
             a.generation == b.generation;                               \
    }                                                                    \
    friend bool operator!=(Name a, Name b) { return !(a == b); }         \
    friend bool operator<(Name a, Name b) { return a.index < b.index; }  \
  };

/// A rigid body.
ATOLL_DEFINE_ID(BodyId)
/// A collision shape attached to a body.
ATOLL_DEFINE_ID(ShapeId)
/// A joint between two bodies.
ATOLL_DEFINE_ID(JointId)

#undef ATOLL_DEFINE_ID

}  // namespace atl

#endif  // ATOLL_ID_H_
