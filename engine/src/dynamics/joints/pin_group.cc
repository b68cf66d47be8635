#include "dynamics/joints/pin_group.h"

#include <variant>

#include "core/float4.h"
#include "dynamics/constraint_colours.h"
#include "dynamics/solver_body4.h"

namespace atl {
namespace {

// Each helper below is the scalar helper of joint_frame.h / atoll/math.h
// it names, lane by lane, with the operations in the same order (float
// arithmetic is not associative: a reordered sum is a different result).

// The current anchors: RotateVector(delta_rotation, anchor).
struct Anchor4 {
  Float4 x, y;
};
ATOLL_INLINE Anchor4 CurrentAnchor4(const Bodies4& b, Float4 x, Float4 y) {
  return {b.qc * x - b.qs * y, b.qs * x + b.qc * y};
}

// The current anchors and the effective mass at them (PinGroup::ra_x...).
struct Geometry4 {
  Anchor4 ra, rb;
  Float4 k11, k12, k22, inv_det;
};

ATOLL_INLINE Geometry4 ComputeGeometry4(PinGroup* g, const Bodies4& a, const Bodies4& b) {
  Geometry4 m;
  m.ra = CurrentAnchor4(a, Load4(g->anchor_ax), Load4(g->anchor_ay));
  m.rb = CurrentAnchor4(b, Load4(g->anchor_bx), Load4(g->anchor_by));
  // PointConstraintMatrix at the current anchors (symmetric: k12 == k21).
  const Float4 ia = Load4(g->inv_inertia_a), ib = Load4(g->inv_inertia_b);
  const Float4 mass_sum = Load4(g->mass_sum);
  const Anchor4 ra = m.ra, rb = m.rb;
  m.k11 = (mass_sum + ia * ra.y * ra.y) + ib * rb.y * rb.y;
  m.k12 = (-ia) * ra.x * ra.y - ib * rb.x * rb.y;
  m.k22 = (mass_sum + ia * ra.x * ra.x) + ib * rb.x * rb.x;
  // Solve22's inverse determinant, zero when singular (an unused lane).
  const Float4 det = m.k11 * m.k22 - m.k12 * m.k12;
  m.inv_det = Select(det == Splat4(0.0f), det, Splat4(1.0f) / det);
  Store4(g->ra_x, m.ra.x);
  Store4(g->ra_y, m.ra.y);
  Store4(g->rb_x, m.rb.x);
  Store4(g->rb_y, m.rb.y);
  Store4(g->k11, m.k11);
  Store4(g->k12, m.k12);
  Store4(g->k22, m.k22);
  Store4(g->inv_det, m.inv_det);
  return m;
}

ATOLL_INLINE Geometry4 KeptGeometry4(const PinGroup& g) {
  return {{Load4(g.ra_x), Load4(g.ra_y)}, {Load4(g.rb_x), Load4(g.rb_y)},
          Load4(g.k11),  Load4(g.k12),  Load4(g.k22),  Load4(g.inv_det)};
}

// ApplyPointImpulse: -p at anchor ra on A, +p at anchor rb on B.
ATOLL_INLINE void ApplyPointImpulse4(const PinGroup& g, Float4 px, Float4 py, Anchor4 ra,
                                     Anchor4 rb, Bodies4* a, Bodies4* b) {
  const Float4 ma = Load4(g.inv_mass_a), ia = Load4(g.inv_inertia_a);
  const Float4 mb = Load4(g.inv_mass_b), ib = Load4(g.inv_inertia_b);
  a->vx = a->vx - ma * px;
  a->vy = a->vy - ma * py;
  a->w = a->w - ia * (ra.x * py - ra.y * px);
  b->vx = b->vx + mb * px;
  b->vy = b->vy + mb * py;
  b->w = b->w + ib * (rb.x * py - rb.y * px);
}

}  // namespace

void ClearPinLane(PinGroup* g, int32_t lane, int32_t static_slot) {
  g->index_a[lane] = g->index_b[lane] = static_slot;
  g->moves_a[lane] = g->moves_b[lane] = 0;
  g->inv_mass_a[lane] = g->inv_inertia_a[lane] = 0.0f;
  g->inv_mass_b[lane] = g->inv_inertia_b[lane] = 0.0f;
  g->mass_sum[lane] = 0.0f;
  g->anchor_ax[lane] = g->anchor_ay[lane] = g->anchor_bx[lane] = g->anchor_by[lane] = 0.0f;
  g->delta_center_x[lane] = g->delta_center_y[lane] = 0.0f;
  g->impulse_x[lane] = g->impulse_y[lane] = 0.0f;
}

void PreparePin(const JointFrame& f, int32_t static_slot, PinGroup* g, int32_t lane) {
  g->index_a[lane] = f.index_a >= 0 ? f.index_a : static_slot;
  g->index_b[lane] = f.index_b >= 0 ? f.index_b : static_slot;
  g->moves_a[lane] = ConstraintMoves(f.index_a, f.inv_mass_a, f.inv_inertia_a) ? 1 : 0;
  g->moves_b[lane] = ConstraintMoves(f.index_b, f.inv_mass_b, f.inv_inertia_b) ? 1 : 0;
  g->inv_mass_a[lane] = f.inv_mass_a;
  g->inv_inertia_a[lane] = f.inv_inertia_a;
  g->inv_mass_b[lane] = f.inv_mass_b;
  g->inv_inertia_b[lane] = f.inv_inertia_b;
  g->mass_sum[lane] = f.inv_mass_a + f.inv_mass_b;
  g->anchor_ax[lane] = f.anchor_a.x;
  g->anchor_ay[lane] = f.anchor_a.y;
  g->anchor_bx[lane] = f.anchor_b.x;
  g->anchor_by[lane] = f.anchor_b.y;
  g->delta_center_x[lane] = f.delta_center.x;
  g->delta_center_y[lane] = f.delta_center.y;
  g->impulse_x[lane] = f.pin_impulse.x;
  g->impulse_y[lane] = f.pin_impulse.y;
}

void WarmStartPins(PinGroup* group, SolverBody* bodies, PinGeometry geometry) {
  PinGroup& g = *group;
  Bodies4 a, b;
  Geometry4 m;
  if (geometry == PinGeometry::kCompute) {
    Gather(bodies, g.index_a, &a);
    Gather(bodies, g.index_b, &b);
    m = ComputeGeometry4(&g, a, b);
  } else {
    GatherVelocities(bodies, g.index_a, &a);
    GatherVelocities(bodies, g.index_b, &b);
    m = KeptGeometry4(g);
  }
  ApplyPointImpulse4(g, Load4(g.impulse_x), Load4(g.impulse_y), m.ra, m.rb, &a, &b);
  // WarmStartRevoluteJoint then applies the axial impulse, +0 for a pin:
  // A's w - 0 is w, but B's w + 0 turns a -0 into +0, and the scalar path
  // stores that.
  b.w = b.w + Splat4(0.0f);
  Scatter(bodies, g.index_a, g.moves_a, a);
  Scatter(bodies, g.index_b, g.moves_b, b);
}

void SolvePins(PinGroup* group, SolverBody* bodies, const Softness& rigid, bool use_bias,
               PinGeometry geometry) {
  PinGroup& g = *group;
  Bodies4 a, b;
  // The motion since step start: for the rotations when computing, and for
  // the separation when biased.
  if (geometry == PinGeometry::kCompute || use_bias) {
    Gather(bodies, g.index_a, &a);
    Gather(bodies, g.index_b, &b);
  } else {
    GatherVelocities(bodies, g.index_a, &a);
    GatherVelocities(bodies, g.index_b, &b);
  }
  const Geometry4 m =
      geometry == PinGeometry::kCompute ? ComputeGeometry4(&g, a, b) : KeptGeometry4(g);
  const Anchor4 ra = m.ra, rb = m.rb;

  // RelativeVelocity: (vb + Cross(wb, rb)) - (va + Cross(wa, ra)), with
  // Cross(w, r) = {-w * r.y, w * r.x}.
  const Float4 cdot_x = (b.vx + (-b.w) * rb.y) - (a.vx + (-a.w) * ra.y);
  const Float4 cdot_y = (b.vy + b.w * rb.x) - (a.vy + a.w * ra.x);

  // SolvePointRows: the right-hand side cdot + bias, with +0 bias in the
  // relax pass (cdot + 0, not cdot + 0 * c: they differ for a -0 cdot).
  Float4 rhs_x, rhs_y, mass_scale, impulse_scale;
  if (use_bias) {
    // CurrentSeparation: (dpb - dpa) + delta_center + (rb - ra).
    const Float4 c_x = ((b.dpx - a.dpx) + Load4(g.delta_center_x)) + (rb.x - ra.x);
    const Float4 c_y = ((b.dpy - a.dpy) + Load4(g.delta_center_y)) + (rb.y - ra.y);
    const Float4 bias_rate = Splat4(rigid.bias_rate);
    rhs_x = cdot_x + bias_rate * c_x;
    rhs_y = cdot_y + bias_rate * c_y;
    mass_scale = Splat4(rigid.mass_scale);
    impulse_scale = Splat4(rigid.impulse_scale);
  } else {
    const Float4 zero = Splat4(0.0f);
    rhs_x = cdot_x + zero;
    rhs_y = cdot_y + zero;
    mass_scale = Splat4(1.0f);
    impulse_scale = zero;
  }

  // Solve22 by Cramer's rule.
  const Float4 x = m.inv_det * (m.k22 * rhs_x - m.k12 * rhs_y);
  const Float4 y = m.inv_det * (m.k11 * rhs_y - m.k12 * rhs_x);

  const Float4 acc_x = Load4(g.impulse_x), acc_y = Load4(g.impulse_y);
  const Float4 px = (-mass_scale) * x - impulse_scale * acc_x;
  const Float4 py = (-mass_scale) * y - impulse_scale * acc_y;
  Store4(g.impulse_x, acc_x + px);
  Store4(g.impulse_y, acc_y + py);
  ApplyPointImpulse4(g, px, py, ra, rb, &a, &b);
  Scatter(bodies, g.index_a, g.moves_a, a);
  Scatter(bodies, g.index_b, g.moves_b, b);
}

void StorePinImpulse(const PinGroup& g, int32_t lane, Joint* joint) {
  std::get<RevoluteJoint>(joint->data).linear_impulse = {g.impulse_x[lane], g.impulse_y[lane]};
}

}  // namespace atl
