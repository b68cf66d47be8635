#include "dynamics/contact_solver.h"

#include <algorithm>
#include <cstddef>

#include "atoll/constants.h"
#include "core/float4.h"
#include "dynamics/constraint_colours.h"
#include "dynamics/island.h"
#include "dynamics/solver_body4.h"
#include "world/world_state.h"

namespace atl {
namespace {

// The warm start and solve kernels are written once for a lane type W:
// Float4, a group's four constraints side by side, or float, a group that
// holds one constraint in lane 0 (the overflow's groups, where colouring ran
// out: in a pile most constraints are there, n2's 80 000 contacts among 400
// bodies 94 %). The float instance does lane 0's operations of the Float4
// one exactly (Min and Max as minps/maxps, no fused operations), so a group
// solves bit for bit the same either way, at a quarter of the work.

// One solver body's state in the lane type float (Bodies4's one lane).
struct Bodies1 {
  float vx, vy, w, pushed;
  float dpx, dpy, qc, qs;
};

ATOLL_INLINE void GatherOneVelocity(const SolverBody* bodies, int32_t index, Bodies1* b) {
  const SolverBody& sb = bodies[index];
  b->vx = sb.linear_velocity.x;
  b->vy = sb.linear_velocity.y;
  b->w = sb.angular_velocity;
  b->pushed = sb.pushed;
}
ATOLL_INLINE void GatherOne(const SolverBody* bodies, int32_t index, Bodies1* b) {
  GatherOneVelocity(bodies, index, b);
  const SolverBody& sb = bodies[index];
  b->dpx = sb.delta_position.x;
  b->dpy = sb.delta_position.y;
  b->qc = sb.delta_rotation.c;
  b->qs = sb.delta_rotation.s;
}
ATOLL_INLINE void ScatterOne(SolverBody* bodies, int32_t index, uint8_t moves, const Bodies1& b) {
  if (moves == 0) return;
  SolverBody& sb = bodies[index];
  sb.linear_velocity = {b.vx, b.vy};
  sb.angular_velocity = b.w;
}

// What the kernels need of a lane type: a group's four lanes, or its lane
// `lane` alone.
template <typename W>
struct Lanes;
template <>
struct Lanes<Float4> {
  using Mask = Mask4;
  using Bodies = Bodies4;
  int32_t lane;  // unused: all four
  Float4 Splat(float x) const { return Splat4(x); }
  Float4 Load(const float* p) const { return Load4(p); }
  void Store(float* p, Float4 a) const { Store4(p, a); }
  Float4 Min(Float4 a, Float4 b) const { return Min4(a, b); }
  Float4 Max(Float4 a, Float4 b) const { return Max4(a, b); }
  Float4 Select(Mask4 m, Float4 a, Float4 b) const { return atl::Select(m, a, b); }
  Mask4 Has(const uint8_t flags[4]) const { return MaskFromLanes(flags); }
  bool Any(Mask4 m) const { return AnyLane(m); }
  void Gather(const SolverBody* bodies, const int32_t index[4], Bodies4* b) const {
    atl::Gather(bodies, index, b);
  }
  void GatherVelocities(const SolverBody* bodies, const int32_t index[4], Bodies4* b) const {
    atl::GatherVelocities(bodies, index, b);
  }
  void Scatter(SolverBody* bodies, const int32_t index[4], const uint8_t moves[4],
               const Bodies4& b) const {
    atl::Scatter(bodies, index, moves, b);
  }
};
template <>
struct Lanes<float> {
  using Mask = bool;
  using Bodies = Bodies1;
  int32_t lane;
  float Splat(float x) const { return x; }
  float Load(const float* p) const { return p[lane]; }
  void Store(float* p, float a) const { p[lane] = a; }
  float Min(float a, float b) const { return atl::Min(a, b); }
  float Max(float a, float b) const { return atl::Max(a, b); }
  float Select(bool m, float a, float b) const { return m ? a : b; }
  bool Has(const uint8_t flags[4]) const { return flags[lane] != 0; }
  bool Any(bool m) const { return m; }
  void Gather(const SolverBody* bodies, const int32_t index[4], Bodies1* b) const {
    GatherOne(bodies, index[lane], b);
  }
  void GatherVelocities(const SolverBody* bodies, const int32_t index[4], Bodies1* b) const {
    GatherOneVelocity(bodies, index[lane], b);
  }
  void Scatter(SolverBody* bodies, const int32_t index[4], const uint8_t moves[4],
               const Bodies1& b) const {
    ScatterOne(bodies, index[lane], moves[lane], b);
  }
};

// The velocity of a body's anchor point r: v + w x r.
template <typename W>
struct Velocity {
  W x, y;
};
template <typename W, typename B>
ATOLL_INLINE Velocity<W> PointVelocity(const B& b, W rx, W ry) {
  // Cross(w, r) = {-w * r.y, w * r.x}.
  return {b.vx + (-b.w) * ry, b.vy + b.w * rx};
}

// v -= m * p and w -= i * cross(r, p) on side a, the opposite on side b.
// A lane without the point applies a zero impulse: PrepareContact zeroes
// every field of a missing point (masses, impulses, anchors), so its
// impulse comes out zero and adding it changes nothing (up to the sign of
// a zero velocity), which saves masking the common case.
template <typename W, typename B>
ATOLL_INLINE void ApplyImpulse(W px, W py, W ma, W ia, W rax, W ray, W mb, W ib, W rbx, W rby,
                               B* a, B* b) {
  a->vx = a->vx - ma * px;
  a->vy = a->vy - ma * py;
  a->w = a->w - ia * (rax * py - ray * px);
  b->vx = b->vx + mb * px;
  b->vy = b->vy + mb * py;
  b->w = b->w + ib * (rbx * py - rby * px);
}

// The same in the lanes of `active` only (restitution, which skips points
// that exist).
template <typename W, typename L, typename B>
ATOLL_INLINE void ApplyImpulse(const L& l, typename L::Mask active, W px, W py, W ma, W ia, W rax,
                               W ray, W mb, W ib, W rbx, W rby, B* a, B* b) {
  a->vx = l.Select(active, a->vx - ma * px, a->vx);
  a->vy = l.Select(active, a->vy - ma * py, a->vy);
  a->w = l.Select(active, a->w - ia * (rax * py - ray * px), a->w);
  b->vx = l.Select(active, b->vx + mb * px, b->vx);
  b->vy = l.Select(active, b->vy + mb * py, b->vy);
  b->w = l.Select(active, b->w + ib * (rbx * py - rby * px), b->w);
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

template <typename W>
void WarmStart(const ContactGroup& g, int32_t lane, SolverBody* bodies) {
  using L = Lanes<W>;
  const L l{lane};
  typename L::Bodies a, b;
  l.GatherVelocities(bodies, g.index_a, &a);
  l.GatherVelocities(bodies, g.index_b, &b);
  const W ma = l.Load(g.inv_mass_a), ia = l.Load(g.inv_inertia_a);
  const W mb = l.Load(g.inv_mass_b), ib = l.Load(g.inv_inertia_b);
  const W nx = l.Load(g.normal_x), ny = l.Load(g.normal_y);
  // t = RightPerp(n).
  const W tx = ny, ty = -nx;
  for (int32_t j = 0; j < 2; ++j) {
    if (!l.Any(l.Has(g.has_point[j]))) continue;
    const ContactGroup::Points& cp = g.points[j];
    const W ni = l.Load(cp.normal_impulse), ti = l.Load(cp.tangent_impulse);
    // p = ni * n + ti * t.
    const W px = ni * nx + ti * tx;
    const W py = ni * ny + ti * ty;
    ApplyImpulse(px, py, ma, ia, l.Load(cp.anchor_ax), l.Load(cp.anchor_ay), mb, ib,
                 l.Load(cp.anchor_bx), l.Load(cp.anchor_by), &a, &b);
  }
  l.Scatter(bodies, g.index_a, g.moves_a, a);
  l.Scatter(bodies, g.index_b, g.moves_b, b);
}

template <typename W>
void Solve(ContactGroup* group, int32_t lane, SolverBody* bodies, const Softness& softness,
           float inv_h, bool use_bias) {
  using L = Lanes<W>;
  using Mask = typename L::Mask;
  const L l{lane};
  ContactGroup& g = *group;
  typename L::Bodies a, b;
  l.Gather(bodies, g.index_a, &a);
  l.Gather(bodies, g.index_b, &b);
  const W ma = l.Load(g.inv_mass_a), ia = l.Load(g.inv_inertia_a);
  const W mb = l.Load(g.inv_mass_b), ib = l.Load(g.inv_inertia_b);
  const W nx = l.Load(g.normal_x), ny = l.Load(g.normal_y);
  const W tx = ny, ty = -nx;
  const W zero = l.Splat(0.0f), one = l.Splat(1.0f);
  const W inv_h4 = l.Splat(inv_h);
  const W bias_rate = l.Splat(softness.bias_rate);
  const W soft_mass_scale = l.Splat(softness.mass_scale);
  const W soft_impulse_scale = l.Splat(softness.impulse_scale);
  const W min_bias = -l.Load(g.max_push);
  const W push_depth = l.Splat(-kPushDepth);
  // Motion of the bodies since the step began.
  const W dpx = b.dpx - a.dpx, dpy = b.dpy - a.dpy;
  W moved_x[2], moved_y[2];  // relative anchor motion per point
  bool any_point[2];

  for (int32_t j = 0; j < 2; ++j) {
    any_point[j] = l.Any(l.Has(g.has_point[j]));
    if (!any_point[j]) continue;
    ContactGroup::Points& cp = g.points[j];
    const W rax = l.Load(cp.anchor_ax), ray = l.Load(cp.anchor_ay);
    const W rbx = l.Load(cp.anchor_bx), rby = l.Load(cp.anchor_by);
    // Separation from how the anchors moved since the step began; the
    // velocity Jacobian keeps the step-start anchors, consistent with the
    // effective mass computed in PrepareContact.
    // d = dp + (RotateVector(qb, rb) - RotateVector(qa, ra)).
    const W rot_bx = b.qc * rbx - b.qs * rby, rot_by = b.qs * rbx + b.qc * rby;
    const W rot_ax = a.qc * rax - a.qs * ray, rot_ay = a.qs * rax + a.qc * ray;
    const W dx = dpx + (rot_bx - rot_ax), dy = dpy + (rot_by - rot_ay);
    moved_x[j] = dx;
    moved_y[j] = dy;
    const W s = (nx * dx + ny * dy) + l.Load(cp.base_separation);

    // Speculative (s > 0): allow closing the gap within this substep, no
    // more. Overlap, with bias: soft push-out, capped.
    const Mask speculative = s > zero;
    W bias, mass_scale, impulse_scale;
    if (use_bias) {
      // A push-out contact's overlap beyond kPushDepth is PushContacts' to
      // remove: there the contact only stops the bodies approaching,
      // rigidly, so it carries any load without sinking further.
      const Mask deep = l.Has(g.push_out) && s < push_depth;
      const Mask rigid = speculative || deep;
      const W push = l.Select(deep, zero, l.Max(bias_rate * s, min_bias));
      bias = l.Select(speculative, s * inv_h4, push);
      mass_scale = l.Select(rigid, one, soft_mass_scale);
      impulse_scale = l.Select(rigid, zero, soft_impulse_scale);
    } else {
      // s > 0 ? s / h : 0, exactly: with inv_h > 0 the product is positive
      // only when s is, and otherwise zero or negative.
      bias = l.Max(s * inv_h4, zero);
      mass_scale = one;
      impulse_scale = zero;
    }
    const Velocity<W> vb = PointVelocity(b, rbx, rby);
    const Velocity<W> va = PointVelocity(a, rax, ray);
    const W vn = (vb.x - va.x) * nx + (vb.y - va.y) * ny;
    const W ni = l.Load(cp.normal_impulse);
    W impulse = -l.Load(cp.normal_mass) * mass_scale * (vn + bias) - impulse_scale * ni;
    const W accumulated = l.Max(ni + impulse, zero);
    impulse = accumulated - ni;
    l.Store(cp.normal_impulse, accumulated);
    l.Store(cp.max_normal_impulse, l.Max(l.Load(cp.max_normal_impulse), impulse));
    ApplyImpulse(impulse * nx, impulse * ny, ma, ia, rax, ray, mb, ib, rbx, rby, &a, &b);
  }

  const W friction = l.Load(g.friction);
  for (int32_t j = 0; j < 2; ++j) {
    if (!any_point[j]) continue;
    ContactGroup::Points& cp = g.points[j];
    const W rax = l.Load(cp.anchor_ax), ray = l.Load(cp.anchor_ay);
    const W rbx = l.Load(cp.anchor_bx), rby = l.Load(cp.anchor_by);
    const Velocity<W> vb = PointVelocity(b, rbx, rby);
    const Velocity<W> va = PointVelocity(a, rax, ray);
    W vt = (vb.x - va.x) * tx + (vb.y - va.y) * ty;
    if (use_bias) {
      // Anchor drift along the surface since the step began (the normal
      // loop's anchor motion: the rotations have not changed).
      const W wx = moved_x[j] - (rbx - rax), wy = moved_y[j] - (rby - ray);
      vt = vt + bias_rate * (tx * wx + ty * wy);
    }
    const W ti = l.Load(cp.tangent_impulse);
    const W limit = friction * l.Load(cp.normal_impulse);
    W impulse = -l.Load(cp.tangent_mass) * vt;
    // Clamp(ti + impulse, -limit, limit) of atoll/math.h (the inner
    // choice is Min(limit, x) exactly).
    const W unclamped = ti + impulse;
    const W accumulated = l.Select(unclamped < -limit, -limit, l.Min(limit, unclamped));
    impulse = accumulated - ti;
    l.Store(cp.tangent_impulse, accumulated);
    ApplyImpulse(impulse * tx, impulse * ty, ma, ia, rax, ray, mb, ib, rbx, rby, &a, &b);
  }
  l.Scatter(bodies, g.index_a, g.moves_a, a);
  l.Scatter(bodies, g.index_b, g.moves_b, b);
}

template <typename W>
void Restitution(ContactGroup* group, int32_t lane, SolverBody* bodies, float threshold) {
  using L = Lanes<W>;
  using Mask = typename L::Mask;
  const L l{lane};
  ContactGroup& g = *group;
  const W zero = l.Splat(0.0f);
  const W restitution = l.Load(g.restitution);
  const Mask bouncy = !(restitution == zero);
  if (!l.Any(bouncy)) return;
  typename L::Bodies a, b;
  l.GatherVelocities(bodies, g.index_a, &a);
  l.GatherVelocities(bodies, g.index_b, &b);
  const W ma = l.Load(g.inv_mass_a), ia = l.Load(g.inv_inertia_a);
  const W mb = l.Load(g.inv_mass_b), ib = l.Load(g.inv_inertia_b);
  const W nx = l.Load(g.normal_x), ny = l.Load(g.normal_y);
  const W min_approach = -l.Splat(threshold);
  for (int32_t j = 0; j < 2; ++j) {
    ContactGroup::Points& cp = g.points[j];
    const W relative_velocity = l.Load(cp.relative_velocity);
    const W max_ni = l.Load(cp.max_normal_impulse);
    // Only where the bodies approached fast enough and the contact actually
    // pushed during the step.
    const Mask active = bouncy && l.Has(g.has_point[j]) &&
                        !(relative_velocity > min_approach || max_ni == zero);
    if (!l.Any(active)) continue;
    const W rax = l.Load(cp.anchor_ax), ray = l.Load(cp.anchor_ay);
    const W rbx = l.Load(cp.anchor_bx), rby = l.Load(cp.anchor_by);
    const Velocity<W> vb = PointVelocity(b, rbx, rby);
    const Velocity<W> va = PointVelocity(a, rax, ray);
    const W vn = (vb.x - va.x) * nx + (vb.y - va.y) * ny;
    const W ni = l.Load(cp.normal_impulse);
    W impulse = -l.Load(cp.normal_mass) * (vn + restitution * relative_velocity);
    const W accumulated = l.Max(ni + impulse, zero);
    impulse = accumulated - ni;
    l.Store(cp.normal_impulse, l.Select(active, accumulated, ni));
    l.Store(cp.max_normal_impulse, l.Select(active, l.Max(max_ni, impulse), max_ni));
    ApplyImpulse(l, active, impulse * nx, impulse * ny, ma, ia, rax, ray, mb, ib, rbx, rby, &a,
                 &b);
  }
  l.Scatter(bodies, g.index_a, g.moves_a, a);
  l.Scatter(bodies, g.index_b, g.moves_b, b);
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

void PrefetchContact(const WorldState& w, int32_t i) {
  // From the body ids to the manifold's point count: under two lines, so
  // at most three.
  const char* p = reinterpret_cast<const char*>(&w.contacts[i]);
  constexpr size_t kFirst = offsetof(Contact, body_a);
  constexpr size_t kLast = offsetof(Contact, manifold) + offsetof(Manifold, point_count);
  static_assert(kFirst < kLast && kLast - kFirst < 2 * 64, "contact prefetch span");
  __builtin_prefetch(p + kFirst);
  __builtin_prefetch(p + kFirst + 64);
  __builtin_prefetch(p + kLast);
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

void WarmStartContacts(const ContactGroup& g, SolverBody* bodies, bool sequential) {
  if (!sequential) return WarmStart<Float4>(g, 0, bodies);
  for (int32_t lane = 0; lane < 4; ++lane) {
    if (g.contact[lane] >= 0) WarmStart<float>(g, lane, bodies);
  }
}

void SolveContacts(ContactGroup* group, SolverBody* bodies, const Softness& softness, float inv_h,
                   bool use_bias, bool sequential) {
  if (!sequential) return Solve<Float4>(group, 0, bodies, softness, inv_h, use_bias);
  for (int32_t lane = 0; lane < 4; ++lane) {
    if (group->contact[lane] >= 0) Solve<float>(group, lane, bodies, softness, inv_h, use_bias);
  }
}

void PushContacts(const ContactGroup& g, const SolverBody* bodies, Vec2* push, float inv_h,
                  float max_push, bool fixed_only) {
  // Lane by lane, each reading the push velocities the lanes before it
  // left: a colour's lanes share no body they move, an overflow group's
  // may and are solved in order.
  for (int32_t lane = 0; lane < 4; ++lane) {
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

void ApplyRestitution(ContactGroup* group, SolverBody* bodies, float threshold, bool sequential) {
  if (!sequential) return Restitution<Float4>(group, 0, bodies, threshold);
  for (int32_t lane = 0; lane < 4; ++lane) {
    if (group->contact[lane] >= 0) Restitution<float>(group, lane, bodies, threshold);
  }
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
