// Atoll — what every joint's solver code shares: the per-step frame of a
// joint and the small vector helpers the constraint rows are built from.
//
// A joint is solved like a contact in the soft step (contact_solver.h): its
// anchors are fixed relative to the body centers at the start of the step,
// and during a substep the current anchors, separation and angle come from
// how far each body moved and turned since then (SolverBody::delta_*). So
// no joint reads a body transform inside the substep loop, and a static
// body (or one outside the solver) is simply kStaticSolverBody.

#ifndef ATOLL_DYNAMICS_JOINTS_JOINT_FRAME_H_
#define ATOLL_DYNAMICS_JOINTS_JOINT_FRAME_H_

#include <cstdint>

#include "atoll/math.h"
#include "dynamics/solver_body.h"

namespace atl {

/// Step-wide constants of the joint solve.
struct JointContext {
  /// Substep length and its inverse.
  float h = 0.0f;
  float inv_h = 0.0f;
  /// Softness of the rigid parts (WorldDef::joint_hertz / damping ratio,
  /// capped for stability). Applied only in the biased pass.
  Softness rigid;
};

/// A joint's view of its two bodies for one step; rebuilt by PrepareJoints
/// into the solver's dense scratch (one per joint in the solve, in joint
/// index order, so the passes that walk every joint stream through it),
/// never saved.
struct JointFrame {
  /// Solver slots, -1 for a body outside the solver (static, asleep, or the
  /// world frame of a target joint).
  int32_t index_a = -1;
  int32_t index_b = -1;
  float inv_mass_a = 0.0f, inv_inertia_a = 0.0f;
  float inv_mass_b = 0.0f, inv_inertia_b = 0.0f;
  /// Anchor minus center of mass, world orientation, at step start.
  Vec2 anchor_a;
  Vec2 anchor_b;
  /// Center of B minus center of A at step start.
  Vec2 delta_center;
  /// The joint angle at step start (B relative to A minus the reference
  /// angle), in (-pi, pi]. The angle during the step adds the relative turn
  /// since then, so it stays continuous even across +-pi.
  float delta_angle = 0.0f;
  /// Rotation of A at step start (axes fixed in A are rotated by it).
  Rot rotation_a;
  /// A pin (IsPin): solved four at a time by pin_group.h, which needs no
  /// angle, so delta_angle is left 0.
  bool pin = false;
  /// A pin's accumulated point impulse (RevoluteJoint::linear_impulse), so
  /// that laying the pins out reads nothing but the frames.
  Vec2 pin_impulse;
};

/// `angle` wrapped into [-pi, pi] (one turn at most off).
inline float UnwindAngle(float angle) {
  if (angle < -kPi) return angle + 2.0f * kPi;
  if (angle > kPi) return angle - 2.0f * kPi;
  return angle;
}

/// The current anchors (rotated by each body's turn since step start).
inline Vec2 CurrentAnchorA(const JointFrame& f, const SolverBody& a) {
  return RotateVector(a.delta_rotation, f.anchor_a);
}
inline Vec2 CurrentAnchorB(const JointFrame& f, const SolverBody& b) {
  return RotateVector(b.delta_rotation, f.anchor_b);
}

/// Anchor B minus anchor A now, from current anchors ra, rb.
inline Vec2 CurrentSeparation(const JointFrame& f, const SolverBody& a, const SolverBody& b,
                              Vec2 ra, Vec2 rb) {
  return (b.delta_position - a.delta_position) + f.delta_center + (rb - ra);
}

/// The joint angle now.
inline float CurrentAngle(const JointFrame& f, const SolverBody& a, const SolverBody& b) {
  return f.delta_angle + RelativeAngle(a.delta_rotation, b.delta_rotation);
}

/// Velocity of anchor B relative to anchor A.
inline Vec2 RelativeVelocity(const SolverBody& a, const SolverBody& b, Vec2 ra, Vec2 rb) {
  return (b.linear_velocity + Cross(b.angular_velocity, rb)) -
         (a.linear_velocity + Cross(a.angular_velocity, ra));
}

/// The effective mass matrix of a point-to-point constraint (inverse mass
/// seen by an impulse at the anchors).
inline Mat22 PointConstraintMatrix(const JointFrame& f, Vec2 ra, Vec2 rb) {
  const float ma = f.inv_mass_a, mb = f.inv_mass_b;
  const float ia = f.inv_inertia_a, ib = f.inv_inertia_b;
  Mat22 k;
  k.cx.x = ma + mb + ia * ra.y * ra.y + ib * rb.y * rb.y;
  k.cy.x = -ia * ra.x * ra.y - ib * rb.x * rb.y;
  k.cx.y = k.cy.x;
  k.cy.y = ma + mb + ia * ra.x * ra.x + ib * rb.x * rb.x;
  return k;
}

/// A symmetric 3x3 effective mass of a point-plus-angle block (weld):
/// rows x, y of the anchor separation and the relative angle.
struct Sym33 {
  float xx = 0.0f, xy = 0.0f, xz = 0.0f;
  float yy = 0.0f, yz = 0.0f, zz = 0.0f;
};

/// The block of a rigid weld at anchors ra, rb.
inline Sym33 PointAngleMatrix(const JointFrame& f, Vec2 ra, Vec2 rb) {
  const Mat22 k = PointConstraintMatrix(f, ra, rb);
  const float ia = f.inv_inertia_a, ib = f.inv_inertia_b;
  Sym33 m;
  m.xx = k.cx.x;
  m.xy = k.cy.x;
  m.yy = k.cy.y;
  // Angular column: an angular impulse turns both anchors.
  m.xz = -ia * ra.y - ib * rb.y;
  m.yz = ia * ra.x + ib * rb.x;
  m.zz = ia + ib;
  return m;
}

/// Solves m * x = b by Cramer's rule; zero when m is singular.
inline void Solve33(const Sym33& m, Vec2 b_xy, float b_z, Vec2* x_xy, float* x_z) {
  // Cofactors of the symmetric matrix.
  const float c_xx = m.yy * m.zz - m.yz * m.yz;
  const float c_xy = m.xz * m.yz - m.xy * m.zz;
  const float c_xz = m.xy * m.yz - m.xz * m.yy;
  const float c_yy = m.xx * m.zz - m.xz * m.xz;
  const float c_yz = m.xz * m.xy - m.xx * m.yz;
  const float c_zz = m.xx * m.yy - m.xy * m.xy;
  float det = m.xx * c_xx + m.xy * c_xy + m.xz * c_xz;
  if (det != 0.0f) det = 1.0f / det;
  x_xy->x = det * (c_xx * b_xy.x + c_xy * b_xy.y + c_xz * b_z);
  x_xy->y = det * (c_xy * b_xy.x + c_yy * b_xy.y + c_yz * b_z);
  *x_z = det * (c_xz * b_xy.x + c_yz * b_xy.y + c_zz * b_z);
}

/// Applies impulse `p` at the anchors: -p on A, +p on B.
inline void ApplyPointImpulse(const JointFrame& f, Vec2 p, Vec2 ra, Vec2 rb, SolverBody* a,
                              SolverBody* b) {
  a->linear_velocity = MulSub(a->linear_velocity, f.inv_mass_a, p);
  a->angular_velocity -= f.inv_inertia_a * Cross(ra, p);
  b->linear_velocity = MulAdd(b->linear_velocity, f.inv_mass_b, p);
  b->angular_velocity += f.inv_inertia_b * Cross(rb, p);
}

/// Applies a linear impulse `p` with angular impulses la (taken from A)
/// and lb (given to B): for rows whose lever arms are not plain anchors.
inline void ApplyRowImpulse(const JointFrame& f, Vec2 p, float la, float lb, SolverBody* a,
                            SolverBody* b) {
  a->linear_velocity = MulSub(a->linear_velocity, f.inv_mass_a, p);
  a->angular_velocity -= f.inv_inertia_a * la;
  b->linear_velocity = MulAdd(b->linear_velocity, f.inv_mass_b, p);
  b->angular_velocity += f.inv_inertia_b * lb;
}

/// Applies an angular impulse: -l on A, +l on B.
inline void ApplyAngularImpulse(const JointFrame& f, float l, SolverBody* a, SolverBody* b) {
  a->angular_velocity -= f.inv_inertia_a * l;
  b->angular_velocity += f.inv_inertia_b * l;
}

/// 1 / (ia + ib), or 0 when neither body turns.
inline float AngularMass(const JointFrame& f) {
  const float k = f.inv_inertia_a + f.inv_inertia_b;
  return k > 0.0f ? 1.0f / k : 0.0f;
}

/// 1 / k for a scalar row, or 0 for a row no body can move along.
inline float InvertMass(float k) { return k > 0.0f ? 1.0f / k : 0.0f; }

/// One unilateral limit row (lower or upper bound). `c` is the distance to
/// the bound (>= 0 inside), `cdot` its rate, `mass` the row's effective
/// mass, `*accumulated` the row's impulse (kept >= 0). Inside the bound the
/// row is speculative: it only stops the body from crossing within this
/// substep. Past the bound it pushes back softly in the biased pass.
/// Returns the impulse increment.
inline float SolveLimitRow(const JointContext& ctx, float c, float cdot, float mass, bool use_bias,
                           float* accumulated) {
  float bias = 0.0f, mass_scale = 1.0f, impulse_scale = 0.0f;
  if (c > 0.0f) {
    bias = c * ctx.inv_h;
  } else if (use_bias) {
    bias = ctx.rigid.bias_rate * c;
    mass_scale = ctx.rigid.mass_scale;
    impulse_scale = ctx.rigid.impulse_scale;
  }
  const float impulse = -mass * mass_scale * (cdot + bias) - impulse_scale * *accumulated;
  const float updated = Max(*accumulated + impulse, 0.0f);
  const float applied = updated - *accumulated;
  *accumulated = updated;
  return applied;
}

/// One spring row: pulls `c` towards zero with `soft` (from MakeSoftness of
/// the user's hertz and damping ratio), in both passes. Returns the
/// increment and accumulates it.
inline float SolveSpringRow(const Softness& soft, float c, float cdot, float mass,
                            float* accumulated) {
  const float impulse =
      -mass * soft.mass_scale * (cdot + soft.bias_rate * c) - soft.impulse_scale * *accumulated;
  *accumulated += impulse;
  return impulse;
}

/// One motor row: drives `cdot` towards `speed` with an accumulated impulse
/// bounded by +-max_impulse. Returns the increment.
inline float SolveMotorRow(float cdot, float speed, float mass, float max_impulse,
                           float* accumulated) {
  const float impulse = mass * (speed - cdot);
  const float updated = Clamp(*accumulated + impulse, -max_impulse, max_impulse);
  const float applied = updated - *accumulated;
  *accumulated = updated;
  return applied;
}

/// A rigid scalar equality row (softened in the biased pass by ctx.rigid).
inline float SolveRigidRow(const JointContext& ctx, float c, float cdot, float mass, bool use_bias,
                           float* accumulated) {
  float bias = 0.0f, mass_scale = 1.0f, impulse_scale = 0.0f;
  if (use_bias) {
    bias = ctx.rigid.bias_rate * c;
    mass_scale = ctx.rigid.mass_scale;
    impulse_scale = ctx.rigid.impulse_scale;
  }
  const float impulse = -mass * mass_scale * (cdot + bias) - impulse_scale * *accumulated;
  *accumulated += impulse;
  return impulse;
}

/// A rigid point-to-point row pair: drives the separation `c` (anchor B
/// minus anchor A) to zero. `soft` is the softness to use in the biased
/// pass; with `always_soft` it is used in both passes (a soft weld).
/// Accumulates and returns the impulse increment.
inline Vec2 SolvePointRows(const Softness& soft, bool use_bias, bool always_soft, Vec2 c,
                           Vec2 cdot, const Mat22& k, Vec2* accumulated) {
  Vec2 bias{0.0f, 0.0f};
  float mass_scale = 1.0f, impulse_scale = 0.0f;
  if (use_bias || always_soft) {
    bias = soft.bias_rate * c;
    mass_scale = soft.mass_scale;
    impulse_scale = soft.impulse_scale;
  }
  const Vec2 b = Solve22(k, cdot + bias);
  const Vec2 impulse = {-mass_scale * b.x - impulse_scale * accumulated->x,
                        -mass_scale * b.y - impulse_scale * accumulated->y};
  *accumulated += impulse;
  return impulse;
}

}  // namespace atl

#endif  // ATOLL_DYNAMICS_JOINTS_JOINT_FRAME_H_
