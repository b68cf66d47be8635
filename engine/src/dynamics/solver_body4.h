// Atoll — four solver bodies at once: the body side of the wide solver
// loops (contacts in contact_solver.cc, pins in joints/pin_group.cc, the
// position integration in solver.cc).
//
// A wide solver works on four constraints of one colour side by side, one
// per lane. It reads the four bodies on each side with Gather (rows of
// SolverBody transposed into lanes), updates them lane by lane exactly as
// the scalar code would, and writes back with Scatter only the bodies its
// constraints move: a body that is only read (static, kinematic) may be
// shared by many constraints of the colour at once (constraint_colours.h).

#ifndef ATOLL_DYNAMICS_SOLVER_BODY4_H_
#define ATOLL_DYNAMICS_SOLVER_BODY4_H_

#include <cstdint>
#include <cstring>

#include "core/float4.h"
#include "dynamics/solver_body.h"

namespace atl {

/// The solver state of the four bodies on one side of a group, one lane per
/// constraint (SolverBody's fields as columns).
struct Bodies4 {
  Float4 vx, vy, w, pushed;
  Float4 dpx, dpy, qc, qs;
};

static_assert(sizeof(SolverBody) == 8 * sizeof(float), "SolverBody is eight floats");

// The wide loops are only fast with these helpers inlined (their Float4
// arguments would otherwise go through memory).
#define ATOLL_INLINE inline __attribute__((always_inline))

/// Reads the velocities of four bodies (every lane names a slot; the static
/// stand-in has its own).
ATOLL_INLINE void GatherVelocities(const SolverBody* bodies, const int32_t index[4], Bodies4* b) {
  b->vx = Load4(reinterpret_cast<const float*>(bodies + index[0]));
  b->vy = Load4(reinterpret_cast<const float*>(bodies + index[1]));
  b->w = Load4(reinterpret_cast<const float*>(bodies + index[2]));
  b->pushed = Load4(reinterpret_cast<const float*>(bodies + index[3]));
  Transpose4(&b->vx, &b->vy, &b->w, &b->pushed);
}

/// Reads the velocities and the motion since the step began.
ATOLL_INLINE void Gather(const SolverBody* bodies, const int32_t index[4], Bodies4* b) {
  GatherVelocities(bodies, index, b);
  b->dpx = Load4(reinterpret_cast<const float*>(bodies + index[0]) + 4);
  b->dpy = Load4(reinterpret_cast<const float*>(bodies + index[1]) + 4);
  b->qc = Load4(reinterpret_cast<const float*>(bodies + index[2]) + 4);
  b->qs = Load4(reinterpret_cast<const float*>(bodies + index[3]) + 4);
  Transpose4(&b->dpx, &b->dpy, &b->qc, &b->qs);
}

/// Writes back the velocities of the bodies the constraints move (lanes
/// with moves[lane] != 0). The constraint passes change nothing but
/// velocities.
ATOLL_INLINE void Scatter(SolverBody* bodies, const int32_t index[4], const uint8_t moves[4],
                          Bodies4 b) {
  Transpose4(&b.vx, &b.vy, &b.w, &b.pushed);
  // Usually every lane moves its body: one test instead of four.
  uint32_t all;
  std::memcpy(&all, moves, sizeof(all));
  if (all == 0x01010101u) {
    Store4(reinterpret_cast<float*>(bodies + index[0]), b.vx);
    Store4(reinterpret_cast<float*>(bodies + index[1]), b.vy);
    Store4(reinterpret_cast<float*>(bodies + index[2]), b.w);
    Store4(reinterpret_cast<float*>(bodies + index[3]), b.pushed);
    return;
  }
  if (moves[0] != 0) Store4(reinterpret_cast<float*>(bodies + index[0]), b.vx);
  if (moves[1] != 0) Store4(reinterpret_cast<float*>(bodies + index[1]), b.vy);
  if (moves[2] != 0) Store4(reinterpret_cast<float*>(bodies + index[2]), b.w);
  if (moves[3] != 0) Store4(reinterpret_cast<float*>(bodies + index[3]), b.pushed);
}

/// Writes back the velocities of all four bodies (the velocity
/// integration, which leaves a kinematic body's as they were).
ATOLL_INLINE void ScatterVelocities(SolverBody* bodies, const int32_t index[4], Bodies4 b) {
  Transpose4(&b.vx, &b.vy, &b.w, &b.pushed);
  Store4(reinterpret_cast<float*>(bodies + index[0]), b.vx);
  Store4(reinterpret_cast<float*>(bodies + index[1]), b.vy);
  Store4(reinterpret_cast<float*>(bodies + index[2]), b.w);
  Store4(reinterpret_cast<float*>(bodies + index[3]), b.pushed);
}

/// Writes back the motion since the step began of all four bodies (the
/// position integration, which moves every body).
ATOLL_INLINE void ScatterMotion(SolverBody* bodies, const int32_t index[4], Bodies4 b) {
  Transpose4(&b.dpx, &b.dpy, &b.qc, &b.qs);
  Store4(reinterpret_cast<float*>(bodies + index[0]) + 4, b.dpx);
  Store4(reinterpret_cast<float*>(bodies + index[1]) + 4, b.dpy);
  Store4(reinterpret_cast<float*>(bodies + index[2]) + 4, b.qc);
  Store4(reinterpret_cast<float*>(bodies + index[3]) + 4, b.qs);
}

}  // namespace atl

#endif  // ATOLL_DYNAMICS_SOLVER_BODY4_H_
