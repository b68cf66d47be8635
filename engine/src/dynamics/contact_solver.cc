#include "dynamics/contact_solver.h"

#include "dynamics/constraint_colours.h"
#include "dynamics/island.h"
#include "world/world_state.h"

namespace atl {
namespace {

// Reads a body's solver state, or the static stand-in.
inline SolverBody Load(const SolverBody* bodies, int32_t index) {
  return index >= 0 ? bodies[index] : kStaticSolverBody;
}
// Writes back only bodies the constraint moves: a kinematic body is read by
// many constraints of one colour at once (constraint_colours.h).
inline void StoreA(SolverBody* bodies, const ContactConstraint& cc,
                   const SolverBody& b) {
  if (ConstraintMoves(cc.index_a, cc.inv_mass_a, cc.inv_inertia_a))
    bodies[cc.index_a] = b;
}
inline void StoreB(SolverBody* bodies, const ContactConstraint& cc,
                   const SolverBody& b) {
  if (ConstraintMoves(cc.index_b, cc.inv_mass_b, cc.inv_inertia_b))
    bodies[cc.index_b] = b;
}

}  // namespace

void PrepareContact(const WorldState& w,
                    const std::vector<SolverBodyParams>& params, int32_t i,
                    ContactConstraint* out) {
  const Contact& c = w.contacts[i];
  const Body& ba = w.bodies[c.body_a];
  const Body& bb = w.bodies[c.body_b];
  const int32_t ia = ba.solver_index;
  const int32_t ib = bb.solver_index;
  ContactConstraint& cc = *out;
  cc = ContactConstraint();
  cc.index_a = ia;
  cc.index_b = ib;
  cc.contact = i;
  cc.normal = c.manifold.normal;
  cc.friction = c.friction;
  cc.restitution = c.restitution;
  cc.inv_mass_a = ia >= 0 ? params[ia].inv_mass : 0.0f;
  cc.inv_inertia_a = ia >= 0 ? params[ia].inv_inertia : 0.0f;
  cc.inv_mass_b = ib >= 0 ? params[ib].inv_mass : 0.0f;
  cc.inv_inertia_b = ib >= 0 ? params[ib].inv_inertia : 0.0f;
  cc.point_count = c.manifold.point_count;

  const Vec2 n = cc.normal;
  const Vec2 t = RightPerp(n);
  const float ma = cc.inv_mass_a, mb = cc.inv_mass_b;
  const float ia_ = cc.inv_inertia_a, ib_ = cc.inv_inertia_b;
  const Vec2 va = ba.linear_velocity, vb = bb.linear_velocity;
  const float wa = ba.angular_velocity, wb = bb.angular_velocity;
  for (int32_t j = 0; j < cc.point_count; ++j) {
    const ManifoldPoint& mp = c.manifold.points[j];
    ContactConstraintPoint& cp = cc.points[j];
    cp.normal_impulse = mp.normal_impulse;
    cp.tangent_impulse = mp.tangent_impulse;
    cp.max_normal_impulse = 0.0f;
    cp.anchor_a = mp.point - ba.center;
    cp.anchor_b = mp.point - bb.center;
    cp.base_separation = mp.separation - Dot(cp.anchor_b - cp.anchor_a, n);
    const float rna = Cross(cp.anchor_a, n), rnb = Cross(cp.anchor_b, n);
    const float kn = ma + mb + ia_ * rna * rna + ib_ * rnb * rnb;
    cp.normal_mass = kn > 0.0f ? 1.0f / kn : 0.0f;
    const float rta = Cross(cp.anchor_a, t), rtb = Cross(cp.anchor_b, t);
    const float kt = ma + mb + ia_ * rta * rta + ib_ * rtb * rtb;
    cp.tangent_mass = kt > 0.0f ? 1.0f / kt : 0.0f;
    const Vec2 dv =
        (vb + Cross(wb, cp.anchor_b)) - (va + Cross(wa, cp.anchor_a));
    cp.relative_velocity = Dot(n, dv);
  }
}

void CollectSolverContacts(const WorldState& w, const std::vector<SolverBodyParams>& params,
                           std::vector<int32_t>* touching) {
  touching->clear();
  for (int32_t i = 0; i < w.contact_ids.Capacity(); ++i) {
    if (!w.contact_ids.IsAlive(i)) continue;
    const Contact& c = w.contacts[i];
    if ((c.flags & kContactTouching) == 0 || (c.flags & kContactSensor) != 0) continue;
    const int32_t ia = w.bodies[c.body_a].solver_index;
    const int32_t ib = w.bodies[c.body_b].solver_index;
    // Only contacts with a dynamic body in the solver push anything.
    const bool a_moves = ia >= 0 && params[ia].inv_mass + params[ia].inv_inertia > 0.0f;
    const bool b_moves = ib >= 0 && params[ib].inv_mass + params[ib].inv_inertia > 0.0f;
    if (!a_moves && !b_moves) continue;
    touching->push_back(i);
  }
}

void WarmStartContact(const ContactConstraint& cc, SolverBody* bodies) {
  SolverBody a = Load(bodies, cc.index_a);
  SolverBody b = Load(bodies, cc.index_b);
  const Vec2 n = cc.normal;
  const Vec2 t = RightPerp(n);
  for (int32_t j = 0; j < cc.point_count; ++j) {
    const ContactConstraintPoint& cp = cc.points[j];
    const Vec2 p = cp.normal_impulse * n + cp.tangent_impulse * t;
    a.angular_velocity -= cc.inv_inertia_a * Cross(cp.anchor_a, p);
    a.linear_velocity = MulSub(a.linear_velocity, cc.inv_mass_a, p);
    b.angular_velocity += cc.inv_inertia_b * Cross(cp.anchor_b, p);
    b.linear_velocity = MulAdd(b.linear_velocity, cc.inv_mass_b, p);
  }
  StoreA(bodies, cc, a);
  StoreB(bodies, cc, b);
}

void SolveContact(ContactConstraint* constraint, SolverBody* bodies,
                  const Softness& softness, float inv_h,
                  float max_push_velocity, bool use_bias) {
  ContactConstraint& cc = *constraint;
  SolverBody a = Load(bodies, cc.index_a);
  SolverBody b = Load(bodies, cc.index_b);
  const float ma = cc.inv_mass_a, ia = cc.inv_inertia_a;
  const float mb = cc.inv_mass_b, ib = cc.inv_inertia_b;
  const Vec2 n = cc.normal;
  const Vec2 t = RightPerp(n);
  // Motion of the bodies since the step began.
  const Vec2 dp = b.delta_position - a.delta_position;
  Vec2 moved[2];  // relative anchor motion per point

  for (int32_t j = 0; j < cc.point_count; ++j) {
    ContactConstraintPoint& cp = cc.points[j];
    // Where the anchors are now relative to where they started.
    // Separation from how the anchors moved since the step began; the
    // velocity Jacobian keeps the step-start anchors, consistent with the
    // effective mass computed in PrepareContact.
    const Vec2 ra = cp.anchor_a;
    const Vec2 rb = cp.anchor_b;
    const Vec2 d = dp + (RotateVector(b.delta_rotation, rb) - RotateVector(a.delta_rotation, ra));
    moved[j] = d;
    const float s = Dot(n, d) + cp.base_separation;

    float bias = 0.0f, mass_scale = 1.0f, impulse_scale = 0.0f;
    if (s > 0.0f) {
      // Speculative: allow closing the gap within this substep, no more.
      bias = s * inv_h;
    } else if (use_bias) {
      bias = Max(softness.bias_rate * s, -max_push_velocity);
      mass_scale = softness.mass_scale;
      impulse_scale = softness.impulse_scale;
    }
    const Vec2 dv = (b.linear_velocity + Cross(b.angular_velocity, rb)) -
                    (a.linear_velocity + Cross(a.angular_velocity, ra));
    const float vn = Dot(dv, n);
    float impulse = -cp.normal_mass * mass_scale * (vn + bias) -
                    impulse_scale * cp.normal_impulse;
    const float accumulated = Max(cp.normal_impulse + impulse, 0.0f);
    impulse = accumulated - cp.normal_impulse;
    cp.normal_impulse = accumulated;
    cp.max_normal_impulse = Max(cp.max_normal_impulse, impulse);

    const Vec2 p = impulse * n;
    a.linear_velocity = MulSub(a.linear_velocity, ma, p);
    a.angular_velocity -= ia * Cross(ra, p);
    b.linear_velocity = MulAdd(b.linear_velocity, mb, p);
    b.angular_velocity += ib * Cross(rb, p);
  }

  for (int32_t j = 0; j < cc.point_count; ++j) {
    ContactConstraintPoint& cp = cc.points[j];
    const Vec2 ra = cp.anchor_a;
    const Vec2 rb = cp.anchor_b;
    const Vec2 dv = (b.linear_velocity + Cross(b.angular_velocity, rb)) -
                    (a.linear_velocity + Cross(a.angular_velocity, ra));
    float vt = Dot(dv, t);
    if (use_bias) {
      // Anchor drift along the surface since the step began.
      // (The normal loop's anchor motion: the rotations have not changed.)
      const Vec2 d = moved[j];
      vt += softness.bias_rate * Dot(t, d - (cp.anchor_b - cp.anchor_a));
    }
    const float limit = cc.friction * cp.normal_impulse;
    float impulse = -cp.tangent_mass * vt;
    const float accumulated = Clamp(cp.tangent_impulse + impulse, -limit, limit);
    impulse = accumulated - cp.tangent_impulse;
    cp.tangent_impulse = accumulated;
    const Vec2 p = impulse * t;
    a.linear_velocity = MulSub(a.linear_velocity, ma, p);
    a.angular_velocity -= ia * Cross(ra, p);
    b.linear_velocity = MulAdd(b.linear_velocity, mb, p);
    b.angular_velocity += ib * Cross(rb, p);
  }
  StoreA(bodies, cc, a);
  StoreB(bodies, cc, b);
}

void ApplyRestitution(ContactConstraint* constraint, SolverBody* bodies,
                      float threshold) {
  ContactConstraint& cc = *constraint;
  if (cc.restitution == 0.0f) return;
  SolverBody a = Load(bodies, cc.index_a);
  SolverBody b = Load(bodies, cc.index_b);
  const Vec2 n = cc.normal;
  for (int32_t j = 0; j < cc.point_count; ++j) {
    ContactConstraintPoint& cp = cc.points[j];
    // Only where the bodies approached fast enough and the contact
    // actually pushed during the step.
    if (cp.relative_velocity > -threshold || cp.max_normal_impulse == 0.0f) continue;
    const Vec2 ra = cp.anchor_a;
    const Vec2 rb = cp.anchor_b;
    const Vec2 dv = (b.linear_velocity + Cross(b.angular_velocity, rb)) -
                    (a.linear_velocity + Cross(a.angular_velocity, ra));
    const float vn = Dot(dv, n);
    float impulse = -cp.normal_mass * (vn + cc.restitution * cp.relative_velocity);
    const float accumulated = Max(cp.normal_impulse + impulse, 0.0f);
    impulse = accumulated - cp.normal_impulse;
    cp.normal_impulse = accumulated;
    cp.max_normal_impulse = Max(cp.max_normal_impulse, impulse);
    const Vec2 p = impulse * n;
    a.linear_velocity = MulSub(a.linear_velocity, cc.inv_mass_a, p);
    a.angular_velocity -= cc.inv_inertia_a * Cross(ra, p);
    b.linear_velocity = MulAdd(b.linear_velocity, cc.inv_mass_b, p);
    b.angular_velocity += cc.inv_inertia_b * Cross(rb, p);
  }
  StoreA(bodies, cc, a);
  StoreB(bodies, cc, b);
}

void StoreImpulses(const ContactConstraint& cc, WorldState* w) {
  Manifold& m = w->contacts[cc.contact].manifold;
  for (int32_t j = 0; j < cc.point_count; ++j) {
    m.points[j].normal_impulse = cc.points[j].normal_impulse;
    m.points[j].tangent_impulse = cc.points[j].tangent_impulse;
  }
}

}  // namespace atl
