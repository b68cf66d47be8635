// Atoll — the contact solver's warm start and Gauss-Seidel pass, written
// once for any lane width.
//
// `L` is a lane policy: four lanes over one ContactGroup (contact_solver.cc)
// or eight over two groups of one colour (contact_solver_avx.cc, where the
// CPU has AVX). Each lane runs the same single-precision operations in the
// same order whatever the width, so eight lanes compute bit for bit what
// four do: the constraints of one colour share no body that either moves,
// so solving them four or eight at a time is the same sweep.
//
// A policy provides: F and M (a float vector and a per-lane condition), B
// (the bodies of one side, SolverBody's fields as columns); static Splat,
// Max, Min, Select and Any; and, over its group(s), Load / LoadPoint /
// StorePoint of ContactGroup fields, MaskOf (a uint8_t field), HasPoint(j),
// Gather / GatherVelocities / Scatter of the bodies on side 0 (a) or 1 (b).
//
// This header is included by a file compiled for AVX: everything here is
// a template or always inlined, so it never leaves an out-of-line copy
// built with instructions another CPU may lack.

#ifndef ATOLL_DYNAMICS_CONTACT_KERNELS_H_
#define ATOLL_DYNAMICS_CONTACT_KERNELS_H_

#include <cstdint>

#include "atoll/constants.h"
#include "dynamics/contact_solver.h"
#include "dynamics/solver_body.h"
#include "dynamics/solver_body4.h"  // ATOLL_INLINE

namespace atl::contact_kernels {

// The velocity of a body's anchor point r: v + w x r.
template <typename F>
struct Velocity {
  F x, y;
};
template <typename F, typename B>
ATOLL_INLINE Velocity<F> PointVelocity(const B& b, F rx, F ry) {
  // Cross(w, r) = {-w * r.y, w * r.x}.
  return {b.vx + (-b.w) * ry, b.vy + b.w * rx};
}

// v -= m * p and w -= i * cross(r, p) on side a, the opposite on side b.
// A lane without the point applies a zero impulse: PrepareContact zeroes
// every field of a missing point (masses, impulses, anchors), so its
// impulse comes out zero and adding it changes nothing (up to the sign of
// a zero velocity), which saves masking the common case.
template <typename F, typename B>
ATOLL_INLINE void ApplyImpulse(F px, F py, F ma, F ia, F rax, F ray, F mb, F ib, F rbx, F rby,
                               B* a, B* b) {
  a->vx = a->vx - ma * px;
  a->vy = a->vy - ma * py;
  a->w = a->w - ia * (rax * py - ray * px);
  b->vx = b->vx + mb * px;
  b->vy = b->vy + mb * py;
  b->w = b->w + ib * (rbx * py - rby * px);
}

// What both passes read of a group besides its points: the bodies' inverse
// masses and inertias, the normal n and the tangent t = RightPerp(n).
template <typename F>
struct GroupFrame {
  F ma, ia, mb, ib, nx, ny, tx, ty;
};

template <typename L>
ATOLL_INLINE GroupFrame<typename L::F> LoadFrame(const L& g) {
  GroupFrame<typename L::F> f;
  f.ma = g.Load(&ContactGroup::inv_mass_a);
  f.ia = g.Load(&ContactGroup::inv_inertia_a);
  f.mb = g.Load(&ContactGroup::inv_mass_b);
  f.ib = g.Load(&ContactGroup::inv_inertia_b);
  f.nx = g.Load(&ContactGroup::normal_x);
  f.ny = g.Load(&ContactGroup::normal_y);
  f.tx = f.ny;
  f.ty = -f.nx;
  return f;
}

// The kernels below skip a manifold point no lane has (any_point[j]
// false). With kMasked, `point_lanes[j]` also says which lanes skip point j
// (false lanes): L's lanes are then two groups of which only one has some
// lane with point j, and for the other's lanes every write of point j is
// undone (the velocities it changed, the impulses it stored), which is
// what skipping it does; its lanes then match the four-lane pass bit for
// bit (a zero impulse could flip the sign of a zero velocity).
template <typename L>
ATOLL_INLINE void KeepLanes(typename L::M keep, const typename L::B& before, typename L::B* b) {
  b->vx = L::Select(keep, b->vx, before.vx);
  b->vy = L::Select(keep, b->vy, before.vy);
  b->w = L::Select(keep, b->w, before.w);
}

// Applies the accumulated impulses (warm start).
template <typename L, bool kMasked = false>
ATOLL_INLINE void WarmStart(const L& g, const bool any_point[2], SolverBody* bodies,
                            const typename L::M* point_lanes = nullptr) {
  using F = typename L::F;
  using Points = ContactGroup::Points;
  typename L::B a, b;
  g.GatherVelocities(bodies, 0, &a);
  g.GatherVelocities(bodies, 1, &b);
  const auto [ma, ia, mb, ib, nx, ny, tx, ty] = LoadFrame(g);
  for (int32_t j = 0; j < 2; ++j) {
    if (!any_point[j]) continue;
    const F ni = g.LoadPoint(j, &Points::normal_impulse);
    const F ti = g.LoadPoint(j, &Points::tangent_impulse);
    // p = ni * n + ti * t.
    const F px = ni * nx + ti * tx;
    const F py = ni * ny + ti * ty;
    const typename L::B a0 = a, b0 = b;
    ApplyImpulse(px, py, ma, ia, g.LoadPoint(j, &Points::anchor_ax),
                 g.LoadPoint(j, &Points::anchor_ay), mb, ib, g.LoadPoint(j, &Points::anchor_bx),
                 g.LoadPoint(j, &Points::anchor_by), &a, &b);
    if constexpr (kMasked) {
      KeepLanes<L>(point_lanes[j], a0, &a);
      KeepLanes<L>(point_lanes[j], b0, &b);
    }
  }
  g.Scatter(bodies, 0, a);
  g.Scatter(bodies, 1, b);
}

// One Gauss-Seidel iteration (SolveContacts in contact_solver.h).
template <typename L, bool kMasked = false>
ATOLL_INLINE void Solve(const L& g, const bool any_point[2], SolverBody* bodies,
                        const Softness& softness, float inv_h, bool use_bias,
                        const typename L::M* point_lanes = nullptr) {
  using F = typename L::F;
  using M = typename L::M;
  using Points = ContactGroup::Points;
  typename L::B a, b;
  g.Gather(bodies, 0, &a);
  g.Gather(bodies, 1, &b);
  const auto [ma, ia, mb, ib, nx, ny, tx, ty] = LoadFrame(g);
  const F zero = L::Splat(0.0f), one = L::Splat(1.0f);
  const F inv_h4 = L::Splat(inv_h);
  const F bias_rate = L::Splat(softness.bias_rate);
  const F soft_mass_scale = L::Splat(softness.mass_scale);
  const F soft_impulse_scale = L::Splat(softness.impulse_scale);
  const F min_bias = -g.Load(&ContactGroup::max_push);
  const F push_depth = L::Splat(-kPushDepth);
  // Motion of the bodies since the step began.
  const F dpx = b.dpx - a.dpx, dpy = b.dpy - a.dpy;
  F moved_x[2], moved_y[2];  // relative anchor motion per point

  for (int32_t j = 0; j < 2; ++j) {
    if (!any_point[j]) continue;
    const F rax = g.LoadPoint(j, &Points::anchor_ax), ray = g.LoadPoint(j, &Points::anchor_ay);
    const F rbx = g.LoadPoint(j, &Points::anchor_bx), rby = g.LoadPoint(j, &Points::anchor_by);
    // Separation from how the anchors moved since the step began; the
    // velocity Jacobian keeps the step-start anchors, consistent with the
    // effective mass computed in PrepareContact.
    // d = dp + (RotateVector(qb, rb) - RotateVector(qa, ra)).
    const F rot_bx = b.qc * rbx - b.qs * rby, rot_by = b.qs * rbx + b.qc * rby;
    const F rot_ax = a.qc * rax - a.qs * ray, rot_ay = a.qs * rax + a.qc * ray;
    const F dx = dpx + (rot_bx - rot_ax), dy = dpy + (rot_by - rot_ay);
    moved_x[j] = dx;
    moved_y[j] = dy;
    const F s = (nx * dx + ny * dy) + g.LoadPoint(j, &Points::base_separation);

    // Speculative (s > 0): allow closing the gap within this substep, no
    // more. Overlap, with bias: soft push-out, capped.
    const M speculative = s > zero;
    F bias, mass_scale, impulse_scale;
    if (use_bias) {
      // A push-out contact's overlap beyond kPushDepth is PushContacts' to
      // remove: there the contact only stops the bodies approaching,
      // rigidly, so it carries any load without sinking further.
      const M deep = g.MaskOf(&ContactGroup::push_out) && s < push_depth;
      const M rigid = speculative || deep;
      const F push = L::Select(deep, zero, L::Max(bias_rate * s, min_bias));
      bias = L::Select(speculative, s * inv_h4, push);
      mass_scale = L::Select(rigid, one, soft_mass_scale);
      impulse_scale = L::Select(rigid, zero, soft_impulse_scale);
    } else {
      // s > 0 ? s / h : 0, exactly: with inv_h > 0 the product is positive
      // only when s is, and otherwise zero or negative.
      bias = L::Max(s * inv_h4, zero);
      mass_scale = one;
      impulse_scale = zero;
    }
    const Velocity<F> vb = PointVelocity(b, rbx, rby);
    const Velocity<F> va = PointVelocity(a, rax, ray);
    const F vn = (vb.x - va.x) * nx + (vb.y - va.y) * ny;
    const F ni = g.LoadPoint(j, &Points::normal_impulse);
    F impulse =
        -g.LoadPoint(j, &Points::normal_mass) * mass_scale * (vn + bias) - impulse_scale * ni;
    const F accumulated = L::Max(ni + impulse, zero);
    impulse = accumulated - ni;
    const F max_before = g.LoadPoint(j, &Points::max_normal_impulse);
    const typename L::B a0 = a, b0 = b;
    ApplyImpulse(impulse * nx, impulse * ny, ma, ia, rax, ray, mb, ib, rbx, rby, &a, &b);
    if constexpr (kMasked) {
      const typename L::M keep = point_lanes[j];
      g.StorePoint(j, &Points::normal_impulse, L::Select(keep, accumulated, ni));
      g.StorePoint(j, &Points::max_normal_impulse,
                   L::Select(keep, L::Max(max_before, impulse), max_before));
      KeepLanes<L>(keep, a0, &a);
      KeepLanes<L>(keep, b0, &b);
    } else {
      g.StorePoint(j, &Points::normal_impulse, accumulated);
      g.StorePoint(j, &Points::max_normal_impulse, L::Max(max_before, impulse));
    }
  }

  const F friction = g.Load(&ContactGroup::friction);
  for (int32_t j = 0; j < 2; ++j) {
    if (!any_point[j]) continue;
    const F rax = g.LoadPoint(j, &Points::anchor_ax), ray = g.LoadPoint(j, &Points::anchor_ay);
    const F rbx = g.LoadPoint(j, &Points::anchor_bx), rby = g.LoadPoint(j, &Points::anchor_by);
    const Velocity<F> vb = PointVelocity(b, rbx, rby);
    const Velocity<F> va = PointVelocity(a, rax, ray);
    F vt = (vb.x - va.x) * tx + (vb.y - va.y) * ty;
    if (use_bias) {
      // Anchor drift along the surface since the step began (the normal
      // loop's anchor motion: the rotations have not changed).
      const F wx = moved_x[j] - (rbx - rax), wy = moved_y[j] - (rby - ray);
      vt = vt + bias_rate * (tx * wx + ty * wy);
    }
    const F ti = g.LoadPoint(j, &Points::tangent_impulse);
    const F limit = friction * g.LoadPoint(j, &Points::normal_impulse);
    F impulse = -g.LoadPoint(j, &Points::tangent_mass) * vt;
    // Clamp(ti + impulse, -limit, limit) of atoll/math.h (the inner
    // choice is Min(limit, x) exactly).
    const F unclamped = ti + impulse;
    const F accumulated = L::Select(unclamped < -limit, -limit, L::Min(limit, unclamped));
    impulse = accumulated - ti;
    const typename L::B a0 = a, b0 = b;
    ApplyImpulse(impulse * tx, impulse * ty, ma, ia, rax, ray, mb, ib, rbx, rby, &a, &b);
    if constexpr (kMasked) {
      g.StorePoint(j, &Points::tangent_impulse, L::Select(point_lanes[j], accumulated, ti));
      KeepLanes<L>(point_lanes[j], a0, &a);
      KeepLanes<L>(point_lanes[j], b0, &b);
    } else {
      g.StorePoint(j, &Points::tangent_impulse, accumulated);
    }
  }
  g.Scatter(bodies, 0, a);
  g.Scatter(bodies, 1, b);
}

}  // namespace atl::contact_kernels

#endif  // ATOLL_DYNAMICS_CONTACT_KERNELS_H_
