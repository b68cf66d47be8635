#include "dynamics/contact_solver.h"

#include <algorithm>
#include <atomic>

#include "atoll/constants.h"
#include "core/float4.h"
#include "dynamics/constraint_colours.h"
#include "dynamics/contact_kernels.h"
#include "dynamics/island.h"
#include "dynamics/solver_body4.h"
#include "world/world_state.h"

namespace atl {
namespace {

using contact_kernels::PointVelocity;
using contact_kernels::Velocity;

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

// Four lanes over one group (contact_kernels.h). Over a const group (the
// warm start only reads it) StorePoint does not compile.
template <typename Group>
struct Lanes4 {
  using F = Float4;
  using M = Mask4;
  using B = Bodies4;
  static F Splat(float x) { return Splat4(x); }
  static F Max(F a, F b) { return Max4(a, b); }
  static F Min(F a, F b) { return Min4(a, b); }
  static F Select(M m, F a, F b) { return atl::Select(m, a, b); }

  F Load(const float (ContactGroup::*field)[4]) const { return Load4(group->*field); }
  F LoadPoint(int32_t j, const float (ContactGroup::Points::*field)[4]) const {
    return Load4(group->points[j].*field);
  }
  void StorePoint(int32_t j, float (ContactGroup::Points::*field)[4], F v) const {
    Store4(group->points[j].*field, v);
  }
  M MaskOf(const uint8_t (ContactGroup::*field)[4]) const { return MaskFromLanes(group->*field); }
  void Gather(const SolverBody* bodies, int side, B* b) const {
    atl::Gather(bodies, side == 0 ? group->index_a : group->index_b, b);
  }
  void GatherVelocities(const SolverBody* bodies, int side, B* b) const {
    atl::GatherVelocities(bodies, side == 0 ? group->index_a : group->index_b, b);
  }
  void Scatter(SolverBody* bodies, int side, const B& b) const {
    atl::Scatter(bodies, side == 0 ? group->index_a : group->index_b,
                 side == 0 ? group->moves_a : group->moves_b, b);
  }

  Group* group;
};

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
    const Velocity<Float4> vb = PointVelocity(b, rbx, rby);
    const Velocity<Float4> va = PointVelocity(a, rax, ray);
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

namespace {

// Slots of the contact pool a block of CollectSolverContacts walks, in
// words of 64.
constexpr int32_t kCollectWords = 32;

// One block of CollectSolverContacts: the live contacts in words [first,
// end) of the pool. Per-body counts and flags are shared with the other
// blocks, so when blocks run at once (`kShared`) they are updated
// atomically; a sum and a flag come out the same in any order.
template <bool kShared>
void CollectBlock(const WorldState& w, const int32_t* slot_of_body,
                  const std::vector<SolverBodyParams>& params, int32_t first, int32_t end,
                  int32_t* deep, uint8_t* pushed, CollectedContacts* out) {
  out->touching.clear();
  out->slots.clear();
  out->hits.clear();
  out->push = false;
  auto count = [deep](int32_t slot) {
    if constexpr (kShared) {
      std::atomic_ref<int32_t>(deep[slot]).fetch_add(1, std::memory_order_relaxed);
    } else {
      ++deep[slot];
    }
  };
  auto mark = [pushed](int32_t slot) {
    if constexpr (kShared) {
      std::atomic_ref<uint8_t>(pushed[slot]).store(1, std::memory_order_relaxed);
    } else {
      pushed[slot] = 1;
    }
  };
  w.contact_ids.ForEachAliveInWords(first, end, [&](int32_t i) {
    const Contact& c = w.contacts[i];
    if ((c.flags & kContactTouching) == 0 || (c.flags & kContactSensor) != 0) return;
    const int32_t ia = slot_of_body[c.body_a];
    const int32_t ib = slot_of_body[c.body_b];
    // Only contacts with a dynamic body in the solver push anything.
    const bool a_moves = ia >= 0 && params[ia].inv_mass + params[ia].inv_inertia > 0.0f;
    const bool b_moves = ib >= 0 && params[ib].inv_mass + params[ib].inv_inertia > 0.0f;
    if (!a_moves && !b_moves) return;
    if ((c.flags & kContactEnableHits) != 0) {
      out->hits.push_back(static_cast<int32_t>(out->touching.size()));
    }
    out->touching.push_back(i);
    out->slots.push_back(ia);
    out->slots.push_back(ib);
    float deepest = 0.0f;
    for (int32_t j = 0; j < c.manifold.point_count; ++j) {
      deepest = Min(deepest, c.manifold.points[j].separation);
    }
    if (deepest < -kLinearSlop) {
      if (ia >= 0) count(ia);
      if (ib >= 0) count(ib);
    }
    if ((c.flags & kContactPushOut) != 0) {
      out->push = true;
      if (ia >= 0) mark(ia);
      if (ib >= 0) mark(ib);
    }
  });
}

}  // namespace

bool CollectSolverContacts(const WorldState& w, const int32_t* slot_of_body,
                           const std::vector<SolverBodyParams>& params,
                           std::vector<int32_t>* touching, std::vector<int32_t>* slots,
                           std::vector<int32_t>* deep, std::vector<uint8_t>* pushed,
                           std::vector<int32_t>* hits, std::vector<CollectedContacts>* blocks) {
  if (params.empty()) {
    // No body in the solver (everything asleep), so no contact has a body
    // that moves: nothing to collect, and no contact record to read.
    deep->clear();
    pushed->clear();
    touching->clear();
    slots->clear();
    hits->clear();
    return false;
  }
  deep->assign(params.size(), 0);
  pushed->assign(params.size(), 0);
  // Blocks of the pool's words in parallel, each listing its contacts in
  // index order; then every block's list is put in place after those
  // before it, so the lists come out in index order at any thread count.
  const int32_t words = w.contact_ids.AliveWordCount();
  const int32_t block_count = std::max(1, (words + kCollectWords - 1) / kCollectWords);
  if (blocks->size() < static_cast<size_t>(block_count)) {
    blocks->resize(static_cast<size_t>(block_count));
  }
  const bool shared = w.executor->concurrency() > 1 && block_count > 1;
  w.executor->ParallelFor(block_count, 1, [&](int32_t begin, int32_t end) {
    for (int32_t b = begin; b < end; ++b) {
      const int32_t first = b * kCollectWords;
      const int32_t last = std::min(words, first + kCollectWords);
      CollectedContacts* out = &(*blocks)[static_cast<size_t>(b)];
      if (shared) {
        CollectBlock<true>(w, slot_of_body, params, first, last, deep->data(), pushed->data(),
                           out);
      } else {
        CollectBlock<false>(w, slot_of_body, params, first, last, deep->data(), pushed->data(),
                            out);
      }
    }
  });
  bool push = false;
  int32_t contacts = 0, hit_count = 0;
  for (int32_t b = 0; b < block_count; ++b) {
    CollectedContacts& block = (*blocks)[static_cast<size_t>(b)];
    block.first = contacts;
    block.first_hit = hit_count;
    contacts += static_cast<int32_t>(block.touching.size());
    hit_count += static_cast<int32_t>(block.hits.size());
    push = push || block.push;
  }
  touching->resize(static_cast<size_t>(contacts));
  slots->resize(2 * static_cast<size_t>(contacts));
  hits->resize(static_cast<size_t>(hit_count));
  w.executor->ParallelFor(block_count, 1, [&](int32_t begin, int32_t end) {
    for (int32_t b = begin; b < end; ++b) {
      const CollectedContacts& block = (*blocks)[static_cast<size_t>(b)];
      std::copy(block.touching.begin(), block.touching.end(), touching->begin() + block.first);
      std::copy(block.slots.begin(), block.slots.end(), slots->begin() + 2 * block.first);
      for (size_t k = 0; k < block.hits.size(); ++k) {
        (*hits)[static_cast<size_t>(block.first_hit) + k] = block.first + block.hits[k];
      }
    }
  });
  // Only a body in a pile shares its push (see the overview).
  for (size_t k = 0; k < deep->size(); ++k) {
    if ((*pushed)[k] == 0 && (*deep)[k] <= kPileContacts) (*deep)[k] = 0;
  }
  return push;
}

void WarmStartContacts(const ContactGroup& g, SolverBody* bodies) {
  bool any_point[2];
  AnyPoints(g, any_point);
  contact_kernels::WarmStart(Lanes4<const ContactGroup>{&g}, any_point, bodies);
}

void SolveContacts(ContactGroup* group, SolverBody* bodies, const Softness& softness, float inv_h,
                   bool use_bias) {
  bool any_point[2];
  AnyPoints(*group, any_point);
  contact_kernels::Solve(Lanes4<ContactGroup>{group}, any_point, bodies, softness, inv_h, use_bias);
}

namespace {

bool AvxUsable() { return CompiledWithAvx() && __builtin_cpu_supports("avx"); }

std::atomic<bool>& WideContacts() {
  static std::atomic<bool> wide{AvxUsable()};
  return wide;
}

}  // namespace

bool WideContactsEnabled() { return WideContacts().load(std::memory_order_relaxed); }

void EnableWideContacts(bool enabled) {
  WideContacts().store(enabled && AvxUsable(), std::memory_order_relaxed);
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
