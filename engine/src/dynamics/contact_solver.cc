#include "dynamics/contact_solver.h"

#include <algorithm>

#include "atoll/constants.h"
#include "core/float4.h"
#include "dynamics/constraint_colours.h"
#include "dynamics/island.h"
#include "dynamics/solver_body4.h"
#include "world/world_state.h"

namespace atl {
namespace {

// The velocity of a body's anchor point r: v + w x r.
struct Velocity {
  Float4 x, y;
};
ATOLL_INLINE Velocity PointVelocity(const Bodies4& b, Float4 rx, Float4 ry) {
  // Cross(w, r) = {-w * r.y, w * r.x}.
  return {b.vx + (-b.w) * ry, b.vy + b.w * rx};
}

// v -= m * p and w -= i * cross(r, p) on side a, the opposite on side b.
// A lane without the point applies a zero impulse: PrepareContact zeroes
// every field of a missing point (masses, impulses, anchors), so its
// impulse comes out zero and adding it changes nothing (up to the sign of
// a zero velocity), which saves masking the common case.
ATOLL_INLINE void ApplyImpulse(Float4 px, Float4 py, Float4 ma, Float4 ia, Float4 rax,
                               Float4 ray, Float4 mb, Float4 ib, Float4 rbx, Float4 rby,
                               Bodies4* a, Bodies4* b) {
  a->vx = a->vx - ma * px;
  a->vy = a->vy - ma * py;
  a->w = a->w - ia * (rax * py - ray * px);
  b->vx = b->vx + mb * px;
  b->vy = b->vy + mb * py;
  b->w = b->w + ib * (rbx * py - rby * px);
}

// The same in the lanes of `active` only (restitution, which skips points
// that exist).
ATOLL_INLINE void ApplyImpulse(Mask4 active, Float4 px, Float4 py, Float4 ma, Float4 ia,
                               Float4 rax, Float4 ray, Float4 mb, Float4 ib, Float4 rbx,
                               Float4 rby, Bodies4* a, Bodies4* b) {
  a->vx = Select(active, a->vx - ma * px, a->vx);
  a->vy = Select(active, a->vy - ma * py, a->vy);
  a->w = Select(active, a->w - ia * (rax * py - ray * px), a->w);
  b->vx = Select(active, b->vx + mb * px, b->vx);
  b->vy = Select(active, b->vy + mb * py, b->vy);
  b->w = Select(active, b->w + ib * (rbx * py - rby * px), b->w);
}

// Zeroes manifold point j of the lane (unused: masked out by has_point).
void ClearPointLane(ContactGroup* g, int32_t j, int32_t lane) {
  g->has_point[j][lane] = 0;
  ContactGroup::Points& cp = g->points[j];
  cp.anchor_ax[lane] = cp.anchor_ay[lane] = cp.anchor_bx[lane] = cp.anchor_by[lane] = 0.0f;
  cp.base_separation[lane] = cp.relative_velocity[lane] = 0.0f;
  cp.normal_impulse[lane] = cp.tangent_impulse[lane] = cp.max_normal_impulse[lane] = 0.0f;
  cp.normal_mass[lane] = cp.tangent_mass[lane] = 0.0f;
}

void WarmStart(const ContactGroup& g, SolverBody* bodies) {
  Bodies4 a, b;
  GatherVelocities(bodies, g.index_a, &a);
  GatherVelocities(bodies, g.index_b, &b);
  const Float4 ma = Load4(g.inv_mass_a), ia = Load4(g.inv_inertia_a);
  const Float4 mb = Load4(g.inv_mass_b), ib = Load4(g.inv_inertia_b);
  const Float4 nx = Load4(g.normal_x), ny = Load4(g.normal_y);
  // t = RightPerp(n).
  const Float4 tx = ny, ty = -nx;
  for (int32_t j = 0; j < 2; ++j) {
    if (!AnyLane(MaskFromLanes(g.has_point[j]))) continue;
    const ContactGroup::Points& cp = g.points[j];
    const Float4 ni = Load4(cp.normal_impulse), ti = Load4(cp.tangent_impulse);
    // p = ni * n + ti * t.
    const Float4 px = ni * nx + ti * tx;
    const Float4 py = ni * ny + ti * ty;
    ApplyImpulse(px, py, ma, ia, Load4(cp.anchor_ax), Load4(cp.anchor_ay), mb, ib,
                 Load4(cp.anchor_bx), Load4(cp.anchor_by), &a, &b);
  }
  Scatter(bodies, g.index_a, g.moves_a, a);
  Scatter(bodies, g.index_b, g.moves_b, b);
}

void Solve(ContactGroup* group, SolverBody* bodies, const Softness& softness, float inv_h,
           bool use_bias) {
  ContactGroup& g = *group;
  Bodies4 a, b;
  Gather(bodies, g.index_a, &a);
  Gather(bodies, g.index_b, &b);
  const Float4 ma = Load4(g.inv_mass_a), ia = Load4(g.inv_inertia_a);
  const Float4 mb = Load4(g.inv_mass_b), ib = Load4(g.inv_inertia_b);
  const Float4 nx = Load4(g.normal_x), ny = Load4(g.normal_y);
  const Float4 tx = ny, ty = -nx;
  const Float4 zero = Splat4(0.0f), one = Splat4(1.0f);
  const Float4 inv_h4 = Splat4(inv_h);
  const Float4 bias_rate = Splat4(softness.bias_rate);
  const Float4 soft_mass_scale = Splat4(softness.mass_scale);
  const Float4 soft_impulse_scale = Splat4(softness.impulse_scale);
  const Float4 min_bias = -Load4(g.max_push);
  const Float4 push_depth = Splat4(-kPushDepth);
  // Motion of the bodies since the step began.
  const Float4 dpx = b.dpx - a.dpx, dpy = b.dpy - a.dpy;
  Float4 moved_x[2], moved_y[2];  // relative anchor motion per point
  bool any_point[2];

  for (int32_t j = 0; j < 2; ++j) {
    any_point[j] = AnyLane(MaskFromLanes(g.has_point[j]));
    if (!any_point[j]) continue;
    ContactGroup::Points& cp = g.points[j];
    const Float4 rax = Load4(cp.anchor_ax), ray = Load4(cp.anchor_ay);
    const Float4 rbx = Load4(cp.anchor_bx), rby = Load4(cp.anchor_by);
    // Separation from how the anchors moved since the step began; the
    // velocity Jacobian keeps the step-start anchors, consistent with the
    // effective mass computed in PrepareContact.
    // d = dp + (RotateVector(qb, rb) - RotateVector(qa, ra)).
    const Float4 rot_bx = b.qc * rbx - b.qs * rby, rot_by = b.qs * rbx + b.qc * rby;
    const Float4 rot_ax = a.qc * rax - a.qs * ray, rot_ay = a.qs * rax + a.qc * ray;
    const Float4 dx = dpx + (rot_bx - rot_ax), dy = dpy + (rot_by - rot_ay);
    moved_x[j] = dx;
    moved_y[j] = dy;
    const Float4 s = (nx * dx + ny * dy) + Load4(cp.base_separation);

    // Speculative (s > 0): allow closing the gap within this substep, no
    // more. Overlap, with bias: soft push-out, capped.
    const Mask4 speculative = s > zero;
    Float4 bias, mass_scale, impulse_scale;
    if (use_bias) {
      // A push-out contact's overlap beyond kPushDepth is PushContacts' to
      // remove: there the contact only stops the bodies approaching,
      // rigidly, so it carries any load without sinking further.
      const Mask4 deep = MaskFromLanes(g.push_out) && s < push_depth;
      const Mask4 rigid = speculative || deep;
      const Float4 push = Select(deep, zero, Max4(bias_rate * s, min_bias));
      bias = Select(speculative, s * inv_h4, push);
      mass_scale = Select(rigid, one, soft_mass_scale);
      impulse_scale = Select(rigid, zero, soft_impulse_scale);
    } else {
      // s > 0 ? s / h : 0, exactly: with inv_h > 0 the product is positive
      // only when s is, and otherwise zero or negative.
      bias = Max4(s * inv_h4, zero);
      mass_scale = one;
      impulse_scale = zero;
    }
    const Velocity vb = PointVelocity(b, rbx, rby);
    const Velocity va = PointVelocity(a, rax, ray);
    const Float4 vn = (vb.x - va.x) * nx + (vb.y - va.y) * ny;
    const Float4 ni = Load4(cp.normal_impulse);
    Float4 impulse = -Load4(cp.normal_mass) * mass_scale * (vn + bias) - impulse_scale * ni;
    const Float4 accumulated = Max4(ni + impulse, zero);
    impulse = accumulated - ni;
    Store4(cp.normal_impulse, accumulated);
    Store4(cp.max_normal_impulse, Max4(Load4(cp.max_normal_impulse), impulse));
    ApplyImpulse(impulse * nx, impulse * ny, ma, ia, rax, ray, mb, ib, rbx, rby, &a, &b);
  }

  const Float4 friction = Load4(g.friction);
  for (int32_t j = 0; j < 2; ++j) {
    if (!any_point[j]) continue;
    ContactGroup::Points& cp = g.points[j];
    const Float4 rax = Load4(cp.anchor_ax), ray = Load4(cp.anchor_ay);
    const Float4 rbx = Load4(cp.anchor_bx), rby = Load4(cp.anchor_by);
    const Velocity vb = PointVelocity(b, rbx, rby);
    const Velocity va = PointVelocity(a, rax, ray);
    Float4 vt = (vb.x - va.x) * tx + (vb.y - va.y) * ty;
    if (use_bias) {
      // Anchor drift along the surface since the step began (the normal
      // loop's anchor motion: the rotations have not changed).
      const Float4 wx = moved_x[j] - (rbx - rax), wy = moved_y[j] - (rby - ray);
      vt = vt + bias_rate * (tx * wx + ty * wy);
    }
    const Float4 ti = Load4(cp.tangent_impulse);
    const Float4 limit = friction * Load4(cp.normal_impulse);
    Float4 impulse = -Load4(cp.tangent_mass) * vt;
    // Clamp(ti + impulse, -limit, limit) of atoll/math.h (the inner
    // choice is Min(limit, x) exactly).
    const Float4 unclamped = ti + impulse;
    const Float4 accumulated = Select(unclamped < -limit, -limit, Min4(limit, unclamped));
    impulse = accumulated - ti;
    Store4(cp.tangent_impulse, accumulated);
    ApplyImpulse(impulse * tx, impulse * ty, ma, ia, rax, ray, mb, ib, rbx, rby, &a, &b);
  }
  Scatter(bodies, g.index_a, g.moves_a, a);
  Scatter(bodies, g.index_b, g.moves_b, b);
}

void Restitution(ContactGroup* group, SolverBody* bodies, float threshold) {
  ContactGroup& g = *group;
  const Float4 zero = Splat4(0.0f);
  const Float4 restitution = Load4(g.restitution);
  const Mask4 bouncy = !(restitution == zero);
  if (!AnyLane(bouncy)) return;
  Bodies4 a, b;
  GatherVelocities(bodies, g.index_a, &a);
  GatherVelocities(bodies, g.index_b, &b);
  const Float4 ma = Load4(g.inv_mass_a), ia = Load4(g.inv_inertia_a);
  const Float4 mb = Load4(g.inv_mass_b), ib = Load4(g.inv_inertia_b);
  const Float4 nx = Load4(g.normal_x), ny = Load4(g.normal_y);
  const Float4 min_approach = -Splat4(threshold);
  for (int32_t j = 0; j < 2; ++j) {
    ContactGroup::Points& cp = g.points[j];
    const Float4 relative_velocity = Load4(cp.relative_velocity);
    const Float4 max_ni = Load4(cp.max_normal_impulse);
    // Only where the bodies approached fast enough and the contact actually
    // pushed during the step.
    const Mask4 active = bouncy && MaskFromLanes(g.has_point[j]) &&
                        !(relative_velocity > min_approach || max_ni == zero);
    if (!AnyLane(active)) continue;
    const Float4 rax = Load4(cp.anchor_ax), ray = Load4(cp.anchor_ay);
    const Float4 rbx = Load4(cp.anchor_bx), rby = Load4(cp.anchor_by);
    const Velocity vb = PointVelocity(b, rbx, rby);
    const Velocity va = PointVelocity(a, rax, ray);
    const Float4 vn = (vb.x - va.x) * nx + (vb.y - va.y) * ny;
    const Float4 ni = Load4(cp.normal_impulse);
    Float4 impulse = -Load4(cp.normal_mass) * (vn + restitution * relative_velocity);
    const Float4 accumulated = Max4(ni + impulse, zero);
    impulse = accumulated - ni;
    Store4(cp.normal_impulse, Select(active, accumulated, ni));
    Store4(cp.max_normal_impulse, Select(active, Max4(max_ni, impulse), max_ni));
    ApplyImpulse(active, impulse * nx, impulse * ny, ma, ia, rax, ray, mb, ib, rbx, rby, &a,
                 &b);
  }
  Scatter(bodies, g.index_a, g.moves_a, a);
  Scatter(bodies, g.index_b, g.moves_b, b);
}

}  // namespace

void ClearContactLane(ContactGroup* g, int32_t lane, int32_t static_slot) {
  g->index_a[lane] = g->index_b[lane] = static_slot;
  g->contact[lane] = -1;
  g->moves_a[lane] = g->moves_b[lane] = 0;
  g->push_out[lane] = 0;
  g->normal_x[lane] = g->normal_y[lane] = 0.0f;
  g->friction[lane] = g->restitution[lane] = g->max_push[lane] = 0.0f;
  g->inv_mass_a[lane] = g->inv_inertia_a[lane] = 0.0f;
  g->inv_mass_b[lane] = g->inv_inertia_b[lane] = 0.0f;
  for (int32_t j = 0; j < 2; ++j) ClearPointLane(g, j, lane);
}

void PrepareContact(const WorldState& w, const ContactPrepareInput& in, int32_t i, int32_t ia,
                    int32_t ib, ContactGroup* g, int32_t lane) {
  const Contact& c = w.contacts[i];
  g->index_a[lane] = ia >= 0 ? ia : in.static_slot;
  g->index_b[lane] = ib >= 0 ? ib : in.static_slot;
  g->contact[lane] = i;
  g->push_out[lane] = (c.flags & kContactPushOut) != 0 ? 1 : 0;
  g->normal_x[lane] = c.manifold.normal.x;
  g->normal_y[lane] = c.manifold.normal.y;
  g->friction[lane] = c.friction;
  g->restitution[lane] = c.restitution;
  // The push limit shared among the deep contacts (contact_solver.h); a
  // body outside the solve cannot give way, so against it the full limit.
  const bool both_solved = ia >= 0 && ib >= 0;
  const int32_t sharing =
      std::max({1, ia >= 0 ? in.deep[ia] : 1, ib >= 0 ? in.deep[ib] : 1});
  g->max_push[lane] = both_solved ? in.max_push / static_cast<float>(sharing) : in.max_push;
  // Warm start of a pile's overlapping points, thinned as the pile grows.
  const float pile_warm_start =
      both_solved && sharing > kPileContacts
          ? static_cast<float>(kPileContacts) / static_cast<float>(sharing)
          : 1.0f;
  const float ma = ia >= 0 ? in.params[ia].inv_mass : 0.0f;
  const float ia_ = ia >= 0 ? in.params[ia].inv_inertia : 0.0f;
  const float mb = ib >= 0 ? in.params[ib].inv_mass : 0.0f;
  const float ib_ = ib >= 0 ? in.params[ib].inv_inertia : 0.0f;
  g->inv_mass_a[lane] = ma;
  g->inv_inertia_a[lane] = ia_;
  g->inv_mass_b[lane] = mb;
  g->inv_inertia_b[lane] = ib_;
  g->moves_a[lane] = ConstraintMoves(ia, ma, ia_) ? 1 : 0;
  g->moves_b[lane] = ConstraintMoves(ib, mb, ib_) ? 1 : 0;

  // A body in the solve from its slot (the values GatherBodies copied);
  // one outside it from the world.
  const Body* out_a = ia >= 0 ? nullptr : &w.bodies[c.body_a];
  const Body* out_b = ib >= 0 ? nullptr : &w.bodies[c.body_b];
  const Vec2 center_a = out_a != nullptr ? out_a->center : in.centers[ia];
  const Vec2 center_b = out_b != nullptr ? out_b->center : in.centers[ib];
  const Vec2 va = out_a != nullptr ? out_a->linear_velocity : in.bodies[ia].linear_velocity;
  const Vec2 vb = out_b != nullptr ? out_b->linear_velocity : in.bodies[ib].linear_velocity;
  const float wa = out_a != nullptr ? out_a->angular_velocity : in.bodies[ia].angular_velocity;
  const float wb = out_b != nullptr ? out_b->angular_velocity : in.bodies[ib].angular_velocity;
  const Vec2 n = c.manifold.normal;
  const Vec2 t = RightPerp(n);
  // Every field of the lane is written: a missing second point is zeroed.
  for (int32_t j = c.manifold.point_count; j < 2; ++j) ClearPointLane(g, j, lane);
  for (int32_t j = 0; j < c.manifold.point_count; ++j) {
    const ManifoldPoint& mp = c.manifold.points[j];
    ContactGroup::Points& cp = g->points[j];
    g->has_point[j][lane] = 1;
    const float warm_start = mp.separation < -kLinearSlop ? pile_warm_start : 1.0f;
    cp.normal_impulse[lane] = warm_start * mp.normal_impulse;
    cp.tangent_impulse[lane] = warm_start * mp.tangent_impulse;
    cp.max_normal_impulse[lane] = 0.0f;
    const Vec2 anchor_a = mp.point - center_a;
    const Vec2 anchor_b = mp.point - center_b;
    cp.anchor_ax[lane] = anchor_a.x;
    cp.anchor_ay[lane] = anchor_a.y;
    cp.anchor_bx[lane] = anchor_b.x;
    cp.anchor_by[lane] = anchor_b.y;
    cp.base_separation[lane] = mp.separation - Dot(anchor_b - anchor_a, n);
    const float rna = Cross(anchor_a, n), rnb = Cross(anchor_b, n);
    const float kn = ma + mb + ia_ * rna * rna + ib_ * rnb * rnb;
    cp.normal_mass[lane] = kn > 0.0f ? 1.0f / kn : 0.0f;
    const float rta = Cross(anchor_a, t), rtb = Cross(anchor_b, t);
    const float kt = ma + mb + ia_ * rta * rta + ib_ * rtb * rtb;
    cp.tangent_mass[lane] = kt > 0.0f ? 1.0f / kt : 0.0f;
    const Vec2 dv = (vb + Cross(wb, anchor_b)) - (va + Cross(wa, anchor_a));
    cp.relative_velocity[lane] = Dot(n, dv);
  }
}

bool CollectSolverContacts(const WorldState& w, const int32_t* slot_of_body,
                           const std::vector<SolverBodyParams>& params,
                           std::vector<int32_t>* touching, std::vector<int32_t>* slots,
                           std::vector<int32_t>* deep, std::vector<uint8_t>* pushed) {
  bool push = false;
  touching->clear();
  slots->clear();
  deep->assign(params.size(), 0);
  pushed->assign(params.size(), 0);
  for (int32_t i = 0; i < w.contact_ids.Capacity(); ++i) {
    if (!w.contact_ids.IsAlive(i)) continue;
    const Contact& c = w.contacts[i];
    if ((c.flags & kContactTouching) == 0 || (c.flags & kContactSensor) != 0) continue;
    const int32_t ia = slot_of_body[c.body_a];
    const int32_t ib = slot_of_body[c.body_b];
    // Only contacts with a dynamic body in the solver push anything.
    const bool a_moves = ia >= 0 && params[ia].inv_mass + params[ia].inv_inertia > 0.0f;
    const bool b_moves = ib >= 0 && params[ib].inv_mass + params[ib].inv_inertia > 0.0f;
    if (!a_moves && !b_moves) continue;
    touching->push_back(i);
    slots->push_back(ia);
    slots->push_back(ib);
    float deepest = 0.0f;
    for (int32_t j = 0; j < c.manifold.point_count; ++j) {
      deepest = Min(deepest, c.manifold.points[j].separation);
    }
    if (deepest < -kLinearSlop) {
      if (ia >= 0) ++(*deep)[ia];
      if (ib >= 0) ++(*deep)[ib];
    }
    if ((c.flags & kContactPushOut) != 0) {
      push = true;
      if (ia >= 0) (*pushed)[ia] = 1;
      if (ib >= 0) (*pushed)[ib] = 1;
    }
  }
  // Only a body in a pile shares its push (see the overview).
  for (size_t k = 0; k < deep->size(); ++k) {
    if ((*pushed)[k] == 0 && (*deep)[k] <= kPileContacts) (*deep)[k] = 0;
  }
  return push;
}

void WarmStartContacts(const ContactGroup& g, SolverBody* bodies) { WarmStart(g, bodies); }

void SolveContacts(ContactGroup* group, SolverBody* bodies, const Softness& softness, float inv_h,
                   bool use_bias) {
  Solve(group, bodies, softness, inv_h, use_bias);
}

void PushContacts(const ContactGroup& g, const SolverBody* bodies, Vec2* push, float inv_h,
                  float max_push, bool fixed_only, int32_t lane_begin, int32_t lane_end) {
  // Lane by lane, each reading the push velocities the lanes before it
  // left.
  for (int32_t lane = lane_begin; lane < lane_end; ++lane) {
    const float ma = g.inv_mass_a[lane], mb = g.inv_mass_b[lane];
    const float k = ma + mb;
    if (g.contact[lane] < 0 || k == 0.0f) continue;
    if (fixed_only && ma != 0.0f && mb != 0.0f) continue;
    const int32_t ia = g.index_a[lane], ib = g.index_b[lane];
    const SolverBody& a = bodies[ia];
    const SolverBody& b = bodies[ib];
    const Vec2 n{g.normal_x[lane], g.normal_y[lane]};
    const Vec2 dp = b.delta_position - a.delta_position;
    Vec2 pa = push[ia], pb = push[ib];
    for (int32_t j = 0; j < 2; ++j) {
      if (g.has_point[j][lane] == 0) continue;
      const ContactGroup::Points& cp = g.points[j];
      const Vec2 ra{cp.anchor_ax[lane], cp.anchor_ay[lane]};
      const Vec2 rb{cp.anchor_bx[lane], cp.anchor_by[lane]};
      // The separation as SolveContacts computes it.
      const Vec2 d = dp + (RotateVector(b.delta_rotation, rb) - RotateVector(a.delta_rotation, ra));
      const float s = Dot(n, d) + cp.base_separation[lane];
      // A push-out contact moves the bodies apart at a share of its
      // overlap beyond kPushDepth per substep. Every contact stops them
      // being pushed into each other deeper than that (or than they
      // already are).
      const float limit = g.push_out[lane] != 0 ? max_push : 0.0f;
      const float target = Min(-kPushRate * (s + kPushDepth) * inv_h, limit);
      const float impulse = Max((target - Dot(n, pb - pa)) / k, 0.0f);
      pa -= (ma * impulse) * n;
      pb += (mb * impulse) * n;
    }
    if (g.moves_a[lane] != 0) push[ia] = pa;
    if (g.moves_b[lane] != 0) push[ib] = pb;
  }
}

void ApplyRestitution(ContactGroup* group, SolverBody* bodies, float threshold) {
  Restitution(group, bodies, threshold);
}

void StoreImpulses(const ContactGroup& g, WorldState* w) {
  for (int32_t lane = 0; lane < 4; ++lane) {
    if (g.contact[lane] < 0) continue;
    Manifold& m = w->contacts[g.contact[lane]].manifold;
    for (int32_t j = 0; j < m.point_count; ++j) {
      m.points[j].normal_impulse = g.points[j].normal_impulse[lane];
      m.points[j].tangent_impulse = g.points[j].tangent_impulse[lane];
    }
  }
}

}  // namespace atl
