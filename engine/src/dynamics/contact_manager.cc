#include "dynamics/contact_manager.h"

#include <algorithm>
#include <chrono>
#include <cstddef>

#include "atoll/assert.h"
#include "atoll/constants.h"
#include "atoll/manifold.h"
#include "broad_phase/pair_sort.h"
#include "core/prefetch.h"
#include "dynamics/contact_solver.h"
#include "dynamics/island.h"
#include "world/world_state.h"

namespace atl {
namespace {

// Mixing rules (documented on ShapeDef): friction is the geometric mean,
// restitution the maximum.
float MixFriction(float a, float b) { return Sqrt(a * b); }
float MixRestitution(float a, float b) { return Max(a, b); }

// UpdateContacts' marks for a pair refused last step under the same rules,
// and for one that gets a new contact.
constexpr int32_t kStillRefused = -2;
constexpr int32_t kCreateContact = -3;
static_assert(kStillRefused != kNullIndex && kCreateContact != kNullIndex,
              "a refused or new pair is not a missing contact");
// How far ahead UpdateContacts' serial loops over new and unmatched
// contacts ask for the lines they will touch (core/prefetch.h): the
// contacts and shapes, then half as far ahead the bodies they name (read
// from those lines), then the ends of the bodies' contact lists.
constexpr size_t kChurnAhead = 8;
// Pairs a block of UpdateContacts' matching passes takes.
constexpr int32_t kPairGrain = 1024;

// Can these two shapes' bodies form a contact at all? The broad phase already
// excludes same-body and static-static pairs and applies filters; a contact
// also needs a dynamic body (kinematic-kinematic and kinematic-static pairs
// exert nothing), two sensors never interact, and jointed bodies collide
// only when every joint between them allows it.
bool ShouldCreateContact(const WorldState& w, int32_t shape_a, int32_t shape_b) {
  const Shape& sa = w.shapes[shape_a];
  const Shape& sb = w.shapes[shape_b];
  if (sa.is_sensor && sb.is_sensor) return false;
  const Body& ba = w.bodies[sa.body];
  const Body& bb = w.bodies[sb.body];
  if (ba.type != BodyType::kDynamic && bb.type != BodyType::kDynamic) return false;
  if (ba.joints.empty() || bb.joints.empty()) return true;
  return JointsAllowContact(w, sa.body, sb.body);
}

int32_t CreateContact(WorldState* w, int32_t shape_a, int32_t shape_b) {
  const int32_t index = w->contact_ids.Alloc();
  if (index >= static_cast<int32_t>(w->contacts.size())) {
    w->contacts.resize(index + 1);
  }
  const Shape& sa = w->shapes[shape_a];
  const Shape& sb = w->shapes[shape_b];
  Contact& c = w->contacts[index];
  c = Contact();
  c.shape_a = shape_a;
  c.shape_b = shape_b;
  c.body_a = sa.body;
  c.body_b = sb.body;
  c.flags = kContactPersisted;
  if (sa.is_sensor || sb.is_sensor) {
    c.flags |= kContactSensor;
    if (sa.enable_sensor_events && sb.enable_sensor_events) {
      c.flags |= kContactEnableEvents;
    }
  } else {
    if (sa.enable_contact_events || sb.enable_contact_events) {
      c.flags |= kContactEnableEvents;
    }
    if (sa.enable_hit_events || sb.enable_hit_events) c.flags |= kContactEnableHits;
  }
  c.friction = MixFriction(sa.friction, sb.friction);
  c.restitution = MixRestitution(sa.restitution, sb.restitution);
  w->bodies[c.body_a].contacts.push_back(index);
  w->bodies[c.body_b].contacts.push_back(index);
  return index;
}

// The contact of shapes (a, b) among the contacts of the body with fewer
// contacts, or kNullIndex.
int32_t FindContact(const WorldState& w, int32_t shape_a, int32_t shape_b) {
  const Body& ba = w.bodies[w.shapes[shape_a].body];
  const Body& bb = w.bodies[w.shapes[shape_b].body];
  const std::vector<int32_t>& list =
      ba.contacts.size() <= bb.contacts.size() ? ba.contacts : bb.contacts;
  for (int32_t c : list) {
    const Contact& contact = w.contacts[c];
    if (contact.shape_a == shape_a && contact.shape_b == shape_b) return c;
  }
  return kNullIndex;
}

void EmitEnd(WorldState* w, const Contact& c, EndEventTarget target) {
  if ((c.flags & kContactEnableEvents) == 0) return;
  const ShapeId a = MakeShapeId(*w, c.shape_a);
  const ShapeId b = MakeShapeId(*w, c.shape_b);
  if ((c.flags & kContactSensor) != 0) {
    if ((c.flags & kContactSensorOverlaps) == 0) return;
    const bool a_is_sensor = w->shapes[c.shape_a].is_sensor;
    const SensorEndEvent e{a_is_sensor ? a : b, a_is_sensor ? b : a};
    (target == EndEventTarget::kCurrentStep ? w->events.sensor_end
                                            : w->pending_sensor_end)
        .push_back(e);
    return;
  }
  if ((c.flags & kContactTouching) == 0) return;
  (target == EndEventTarget::kCurrentStep ? w->events.contact_end
                                          : w->pending_contact_end)
      .push_back({a, b});
}

// Releases the record (events and island already handled).
void FreeContactRecord(WorldState* w, int32_t index) {
  w->contacts[index] = Contact();
  w->contact_ids.Free(index);
}

// A new manifold point takes the warm-start impulses of last step's point
// with the same feature id, or else of last step's nearest point within
// this distance, when the normal has turned by less than acos(kCarryCos).
// Feature ids are not stable for shapes that rest at a slant on each
// other's corners (a small box wedged in a heap of mixed sizes): the
// clipping picks another incident edge, the id changes although the point
// has not moved, and a point that starts its step without its impulse lets
// the load sink for a step and spring back. Such points, a few in a
// thousand per step, kept heaps of mixed sizes rocking for ever.
constexpr float kCarryDistance = kSpeculativeDistance;
constexpr float kCarryCos = 0.95f;

// Contact recycling. A contact whose bodies have moved relative to each
// other by less than kRecycleDistance (a point of either body, at most
// max_extent from its center, has moved that little against the other)
// and turned by less than acos(kRecycleCos) in the world since its
// manifold was computed keeps that manifold: its points ride on their
// bodies and only the separations are brought up to date, the same
// approximation the substeps make within a step (contact_solver.h). The
// normal stays. In a resting stack this skips most of the narrow phase
// and the points stop flickering between features. Not separated shapes
// farther than kSpeculativeDistance apart recycle only within that
// distance, so no new touch is missed. Circles and capsules always
// recompute: their contact point is not fixed on the body, it rolls.
// Box2D v3 recycles the same way with the same two thresholds (10 slops,
// 0.98).
constexpr float kRecycleDistance = 10.0f * kLinearSlop;
constexpr float kRecycleCos = 0.98f;

bool Round(const ShapeGeometry& g) {
  return g.type == ShapeType::kCircle || g.type == ShapeType::kCapsule;
}

// Moves the manifold with its bodies if they are still close to its base
// poses; returns false if it must be recomputed.
bool RecycleManifold(const WorldState& w, Contact* c) {
  if ((c->flags & kContactRecycle) == 0) return false;
  const Body& ba = w.bodies[c->body_a];
  const Body& bb = w.bodies[c->body_b];
  const Transform& xa = ba.transform;
  const Transform& xb = bb.transform;
  const ManifoldBase& base = c->base;
  const Rot turn_a = InvMulRot(base.transform_a.q, xa.q);
  const Rot turn_b = InvMulRot(base.transform_b.q, xb.q);
  if (Min(turn_a.c, turn_b.c) <= kRecycleCos) return false;
  const Transform now = InvMulTransforms(xa, xb);
  const Transform then = InvMulTransforms(base.transform_a, base.transform_b);
  const float extent = Max(ba.type == BodyType::kStatic ? 0.0f : ba.max_extent,
                           bb.type == BodyType::kStatic ? 0.0f : bb.max_extent);
  const float moved =
      Distance(now.p, then.p) + extent * Abs(InvMulRot(now.q, then.q).s);
  const float tolerance = (c->flags & kContactTouching) != 0
                              ? kRecycleDistance
                              : Min(kRecycleDistance, kSpeculativeDistance);
  if (!(moved < tolerance)) return false;
  Manifold& m = c->manifold;
  const Vec2 offset = xb.p - xa.p;
  for (int32_t i = 0; i < m.point_count; ++i) {
    ManifoldPoint& p = m.points[i];
    const Vec2 ra = RotateVector(turn_a, base.anchor_a[i]);
    const Vec2 rb = RotateVector(turn_b, base.anchor_b[i]);
    const Vec2 gap = offset + (rb - ra);
    p.separation = base.separation[i] + Dot(gap, m.normal);
    p.anchor_a = ra + 0.5f * gap;
    p.anchor_b = p.anchor_a - offset;
    p.point = xa.p + p.anchor_a;
  }
  return true;
}

// Records the poses the manifold was computed at (kContactRecycle).
void SaveManifoldBase(const WorldState& w, Contact* c) {
  const Shape& sa = w.shapes[c->shape_a];
  const Shape& sb = w.shapes[c->shape_b];
  if (Round(sa.geometry) || Round(sb.geometry)) {
    c->flags &= ~kContactRecycle;
    return;
  }
  c->flags |= kContactRecycle;
  ManifoldBase& base = c->base;
  base = ManifoldBase();
  base.transform_a = w.bodies[c->body_a].transform;
  base.transform_b = w.bodies[c->body_b].transform;
  for (int32_t i = 0; i < c->manifold.point_count; ++i) {
    const ManifoldPoint& p = c->manifold.points[i];
    base.anchor_a[i] = p.anchor_a;
    base.anchor_b[i] = p.anchor_b;
    base.separation[i] = p.separation;
  }
}

// How far a body's points can have moved during the last step by their
// velocity: its center's travel (Body::center0 leaves out the push-out)
// plus what its turn moves a point at its largest extent.
float LastStepTravel(const Body& b) {
  const Vec2 turn{b.transform.q.c - b.rotation0.c, b.transform.q.s - b.rotation0.s};
  return Length(b.center - b.center0) + Length(turn) * b.max_extent;
}

float Deepest(const Manifold& m) {
  float deepest = 0.0f;
  for (int32_t j = 0; j < m.point_count; ++j) deepest = Min(deepest, m.points[j].separation);
  return deepest;
}

// Sets kContactPushOut on a contact deeper than kPushDepth whose overlap
// appeared or grew during the last step by more than its bodies' motion
// explains (`before`: its deepest separation then, 0 if it did not touch):
// they were created, moved or pushed out of other overlap into each other,
// rather than driven in by their velocity (an impact, a load, which the
// velocity solve answers). Cleared when the contact stops touching.
void UpdatePushOut(const WorldState& w, Contact* c, float before, bool touching) {
  if (!touching) {
    c->flags &= ~kContactPushOut;
    return;
  }
  const float deepest = Deepest(c->manifold);
  if (deepest >= -kPushDepth || (c->flags & kContactPushOut) != 0) return;
  const float travel = LastStepTravel(w.bodies[c->body_a]) + LastStepTravel(w.bodies[c->body_b]);
  if (before - deepest > travel + kLinearSlop) c->flags |= kContactPushOut;
}

// Computes the contact's manifold for the bodies' current poses, carrying
// warm-start impulses over (see kCarryDistance), or recycles it (then sets
// *recycled). Returns whether it touches.
bool UpdateManifold(WorldState* w, Contact* c, bool* recycled) {
  const Shape& sa = w->shapes[c->shape_a];
  const Shape& sb = w->shapes[c->shape_b];
  const Transform& xa = w->bodies[c->body_a].transform;
  const Transform& xb = w->bodies[c->body_b].transform;
  if ((c->flags & kContactSensor) != 0) {
    const Manifold m = CollideShapes(sa.geometry, xa, sb.geometry, xb);
    bool overlaps = false;
    for (int32_t i = 0; i < m.point_count; ++i) {
      overlaps = overlaps || m.points[i].separation < 0.0f;
    }
    return overlaps;
  }
  if (RecycleManifold(*w, c)) {
    *recycled = true;
    return c->manifold.point_count > 0;
  }
  const Manifold old = c->manifold;
  c->manifold = CollideShapes(sa.geometry, xa, sb.geometry, xb);
  Manifold& m = c->manifold;
  bool taken[2] = {};
  bool carried[2] = {};
  for (int32_t i = 0; i < m.point_count; ++i) {
    ManifoldPoint& p = m.points[i];
    p.normal_impulse = 0.0f;
    p.tangent_impulse = 0.0f;
    for (int32_t j = 0; j < old.point_count; ++j) {
      if (!taken[j] && old.points[j].id == p.id) {
        p.normal_impulse = old.points[j].normal_impulse;
        p.tangent_impulse = old.points[j].tangent_impulse;
        taken[j] = carried[i] = true;
        break;
      }
    }
  }
  if (Dot(old.normal, m.normal) >= kCarryCos) {
    for (int32_t i = 0; i < m.point_count; ++i) {
      if (carried[i]) continue;
      ManifoldPoint& p = m.points[i];
      float nearest = kCarryDistance * kCarryDistance;
      int32_t from = -1;
      for (int32_t j = 0; j < old.point_count; ++j) {
        const float d2 = DistanceSquared(old.points[j].point, p.point);
        if (!taken[j] && d2 < nearest) {
          nearest = d2;
          from = j;
        }
      }
      if (from < 0) continue;
      p.normal_impulse = old.points[from].normal_impulse;
      p.tangent_impulse = old.points[from].tangent_impulse;
      taken[from] = true;
    }
  }
  SaveManifoldBase(*w, c);
  return m.point_count > 0;
}

// Whether a body of `pair` was in the broad phase's moving part at last
// step's match (see WorldState::refiled_since_match): then a pair last step
// did not name has no contact.
bool MovingAtLastMatch(const WorldState& w, const ProxyPair& pair) {
  if (!w.matched) return false;
  for (int32_t shape : {pair.a, pair.b}) {
    const int32_t body = w.shapes[shape].body;
    const bool refiled = static_cast<size_t>(body) < w.refiled_since_match.size() &&
                         w.refiled_since_match[body] != 0;
    if (!refiled && !ProxyIsStatic(w.bodies[body])) return true;
  }
  return false;
}

// Whether no body is awake and moving: every body asleep or static.
bool NothingAwake(WorldState* w) {
  RefreshMovingBodies(w);
  for (const int32_t i : w->moving_bodies) {
    if (w->bodies[i].awake) return false;
  }
  return true;
}

// The pairs are matched: the bodies refiled since the last match are
// forgotten.
void FinishMatch(WorldState* w) {
  for (int32_t b : w->refiled_bodies) w->refiled_since_match[b] = 0;
  w->refiled_bodies.clear();
  w->matched = true;
}

// No contact has begun or ended touching, or been recycled, yet this step.
void ClearTouchChanges(WorldState* w) {
  const int32_t count = w->contact_ids.Capacity();
  w->begin_touching.Resize(count);
  w->end_touching.Resize(count);
  w->begin_touching.ClearAll();
  w->end_touching.ClearAll();
  w->recycled_contacts = 0;
}

}  // namespace

// Scans the shorter joint list.
bool JointsAllowContact(const WorldState& w, int32_t a, int32_t b) {
  const Body& ba = w.bodies[a];
  const Body& bb = w.bodies[b];
  const bool a_shorter = ba.joints.size() <= bb.joints.size();
  const int32_t from = a_shorter ? a : b;
  const int32_t to = a_shorter ? b : a;
  for (int32_t j : w.bodies[from].joints) {
    const Joint& joint = w.joints[j];
    if (!joint.collide_connected && OtherJointBody(joint, from) == to) return false;
  }
  return true;
}

void DestroyContact(WorldState* w, int32_t index, EndEventTarget target,
                    bool wake) {
  Contact& c = w->contacts[index];
  EmitEnd(w, c, target);
  if (c.island != kNullIndex) UnlinkContact(w, index);
  for (int32_t body : {c.body_a, c.body_b}) {
    std::vector<int32_t>& list = w->bodies[body].contacts;
    list.erase(std::find(list.begin(), list.end(), index));
    if (wake && w->bodies[body].island != kNullIndex) {
      WakeIsland(w, w->bodies[body].island);
    }
  }
  FreeContactRecord(w, index);
}

void UpdateContacts(WorldState* w) {
  // A world with nothing awake has no pair, no contact the narrow phase
  // would update (each needs an awake body) and none the batch removal
  // would take (both bodies are in the broad phase's static part): every
  // contact persists as it is and none begins or ends. What the passes
  // below would leave is set directly, without them reading every
  // contact's record and bodies: on a server's tick thread those come from
  // memory, each tick of each settled world.
  if (w->pairs.empty() && NothingAwake(w)) {
    w->pair_contacts.clear();
    w->last_pair_keys.clear();
    w->last_pair_contacts.clear();
    w->last_pair_generations.clear();
    FinishMatch(w);
    ClearTouchChanges(w);
    w->island_link_ms = 0.0f;
    return;
  }
  // Match this step's pairs to contacts (seed 000 §4.2.2): find the contact
  // each pair names, create contacts for new pairs, then destroy the
  // contacts no pair named in one batch pass. Contacts whose bodies are
  // both asleep or static are not reported (their proxies are all in the
  // static part of the broad phase); they persist as they are until
  // something wakes one side.
  //
  // Both pair lists are sorted by key, so last step's contacts are found by
  // a merge; only pairs it does not know (new pairs, pairs of bodies that
  // just woke, everything after a restore) search their body's contacts.
  //
  // The matching only reads the world, each pair writing its own entry, so
  // it runs in blocks of pairs on the executor: a block starts its merge
  // where its first key would be (the serial merge's place there).
  const int32_t pair_count = static_cast<int32_t>(w->pairs.size());
  w->pair_contacts.resize(w->pairs.size());
  w->executor->ParallelFor(pair_count, kPairGrain, [w](int32_t begin, int32_t end) {
    const std::vector<uint64_t>& last_keys = w->last_pair_keys;
    const size_t last_count = last_keys.size();
    size_t j = static_cast<size_t>(
        std::lower_bound(last_keys.begin(), last_keys.end(),
                         PairKey(w->pairs[begin].a, w->pairs[begin].b)) -
        last_keys.begin());
    for (int32_t k = begin; k < end; ++k) {
      const ProxyPair& pair = w->pairs[k];
      const uint64_t key = PairKey(pair.a, pair.b);
      while (j < last_count && last_keys[j] < key) ++j;
      int32_t found = kNullIndex;
      bool known = false;
      if (j < last_count && last_keys[j] == key) {
        const int32_t c = w->last_pair_contacts[j];
        if (c == kNullIndex) {
          // No contact last step, and only this function creates them: the
          // pair was refused. The creation pass below asks again unless no
          // rule changed since.
          known = true;
          if (w->last_pair_generations[j] == w->contact_rule_epoch) found = kStillRefused;
        } else if (w->contact_ids.IsAlive(c) &&
                   w->contact_ids.Generation(c) == w->last_pair_generations[j]) {
          found = c;
          known = true;
        }
      }
      if (!known && !MovingAtLastMatch(*w, pair)) found = FindContact(*w, pair.a, pair.b);
      // Whether a pair without a contact may have one only reads the
      // world, so it is asked here too.
      if (found == kNullIndex && ShouldCreateContact(*w, pair.a, pair.b)) found = kCreateContact;
      w->pair_contacts[k] = found;
    }
  });
  // New contacts in pair order: their slots come off the pool in that order.
  std::vector<int32_t>& created = w->new_contact_pairs;
  created.clear();
  for (int32_t k = 0; k < pair_count; ++k) {
    int32_t& c = w->pair_contacts[k];
    if (c == kStillRefused) c = kNullIndex;
    if (c == kCreateContact) created.push_back(k);
  }
  for (size_t n = 0; n < created.size(); ++n) {
    // Out of the cache when contacts come and go by the thousand (spinner):
    // the records to write, their shapes, the bodies, their lists' ends.
    if (n + kChurnAhead < created.size()) {
      const ProxyPair& ahead = w->pairs[created[n + kChurnAhead]];
      PrefetchLines(&w->shapes[ahead.a]);
      PrefetchLines(&w->shapes[ahead.b]);
      const int32_t slot = w->contact_ids.PeekAlloc(static_cast<int32_t>(kChurnAhead));
      if (static_cast<size_t>(slot) < w->contacts.size()) PrefetchLines(&w->contacts[slot]);
    }
    if (n + kChurnAhead / 2 < created.size()) {
      const ProxyPair& ahead = w->pairs[created[n + kChurnAhead / 2]];
      for (const int32_t shape : {ahead.a, ahead.b}) {
        const std::vector<int32_t>& list = w->bodies[w->shapes[shape].body].contacts;
        __builtin_prefetch(&list);
      }
    }
    if (n + 1 < created.size()) {
      const ProxyPair& next = w->pairs[created[n + 1]];
      for (const int32_t shape : {next.a, next.b}) {
        const std::vector<int32_t>& list = w->bodies[w->shapes[shape].body].contacts;
        __builtin_prefetch(list.data() + list.size());
      }
    }
    const int32_t k = created[n];
    w->pair_contacts[k] = CreateContact(w, w->pairs[k].a, w->pairs[k].b);
  }
  w->contact_matched.assign(static_cast<size_t>(w->contact_ids.Capacity()), 0);
  w->last_pair_keys.resize(w->pairs.size());
  w->last_pair_contacts.resize(w->pairs.size());
  w->last_pair_generations.resize(w->pairs.size());
  // Each pair its own entries and its own contact's flag.
  w->executor->ParallelFor(pair_count, kPairGrain, [w](int32_t begin, int32_t end) {
    for (int32_t k = begin; k < end; ++k) {
      const int32_t c = w->pair_contacts[k];
      w->last_pair_keys[k] = PairKey(w->pairs[k].a, w->pairs[k].b);
      w->last_pair_contacts[k] = c;
      w->last_pair_generations[k] =
          c != kNullIndex ? w->contact_ids.Generation(c) : w->contact_rule_epoch;
      if (c != kNullIndex) w->contact_matched[c] = 1;
    }
  });

  // Batch removal of contacts whose pair vanished. Records go first; the
  // per-body arrays are compacted afterwards, one pass per affected body,
  // instead of a search per removed contact.
  std::vector<int32_t>& unmatched = w->unmatched_contacts;
  unmatched.clear();
  w->contact_ids.ForEachAlive([w, &unmatched](int32_t i) {
    if (w->contact_matched[i] == 0) unmatched.push_back(i);
  });
  std::vector<int32_t> affected_bodies;
  for (size_t n = 0; n < unmatched.size(); ++n) {
    if (n + kChurnAhead < unmatched.size()) PrefetchLines(&w->contacts[unmatched[n + kChurnAhead]]);
    if (n + kChurnAhead / 2 < unmatched.size()) {
      const Contact& ahead = w->contacts[unmatched[n + kChurnAhead / 2]];
      __builtin_prefetch(&w->bodies[ahead.body_a]);
      __builtin_prefetch(&w->bodies[ahead.body_b]);
    }
    const int32_t i = unmatched[n];
    Contact& c = w->contacts[i];
    if (ProxyIsStatic(w->bodies[c.body_a]) && ProxyIsStatic(w->bodies[c.body_b])) continue;
    EmitEnd(w, c, EndEventTarget::kCurrentStep);
    if (c.island != kNullIndex) UnlinkContact(w, i);
    affected_bodies.push_back(c.body_a);
    affected_bodies.push_back(c.body_b);
    FreeContactRecord(w, i);
  }
  FinishMatch(w);
  if (!affected_bodies.empty()) {
    std::sort(affected_bodies.begin(), affected_bodies.end());
    affected_bodies.erase(std::unique(affected_bodies.begin(), affected_bodies.end()),
                          affected_bodies.end());
    // Each body its own list.
    const int32_t affected = static_cast<int32_t>(affected_bodies.size());
    w->executor->ParallelFor(affected, 64, [w, &affected_bodies](int32_t begin, int32_t end) {
      for (int32_t k = begin; k < end; ++k) {
        if (k + 4 < end) __builtin_prefetch(&w->bodies[affected_bodies[k + 4]].contacts);
        if (k + 1 < end) __builtin_prefetch(w->bodies[affected_bodies[k + 1]].contacts.data());
        std::vector<int32_t>& list = w->bodies[affected_bodies[k]].contacts;
        list.erase(std::remove_if(list.begin(), list.end(),
                                  [w](int32_t c) { return !w->contact_ids.IsAlive(c); }),
                   list.end());
      }
    });
  }

  // Narrow phase over contacts with an awake body, in parallel: each
  // contact writes only its own manifold and its own touch_change slot. The
  // live contacts are listed first (in index order): after a pile came
  // apart the pool's capacity can be many times the contacts left.
  const int32_t count = w->contact_ids.Capacity();
  w->live_contacts.clear();
  w->contact_ids.ForEachAlive([w](int32_t i) { w->live_contacts.push_back(i); });
  w->touch_change.resize(static_cast<size_t>(count));
  const int32_t live = static_cast<int32_t>(w->live_contacts.size());
  w->executor->ParallelFor(live, 64, [w](int32_t begin, int32_t end) {
    for (int32_t k = begin; k < end; ++k) {
      // Out of the cache on a server's tick thread (core/prefetch.h): a
      // contact's lines and its bodies' are asked for a few contacts ahead
      // (the contact first, as it names the bodies).
      // Shapes are not: most contacts here are recycled and never read
      // them, and asking cost the pyramids' hot caches more than it gave.
      if (k + 8 < end) PrefetchLines(&w->contacts[w->live_contacts[k + 8]]);
      if (k + 4 < end) {
        const Contact& ahead = w->contacts[w->live_contacts[k + 4]];
        for (const int32_t body : {ahead.body_a, ahead.body_b}) {
          // RecycleManifold reads the type and transform, then max_extent.
          __builtin_prefetch(&w->bodies[body]);
          __builtin_prefetch(&w->bodies[body].max_extent);
        }
      }
      const int32_t i = w->live_contacts[k];
      w->touch_change[i] = 0;
      Contact& c = w->contacts[i];
      const Body& ba = w->bodies[c.body_a];
      const Body& bb = w->bodies[c.body_b];
      const bool a_active = ba.awake && ba.type != BodyType::kStatic;
      const bool b_active = bb.awake && bb.type != BodyType::kStatic;
      if (!a_active && !b_active) continue;
      const uint32_t flag =
          (c.flags & kContactSensor) != 0 ? kContactSensorOverlaps : kContactTouching;
      const bool was = (c.flags & flag) != 0;
      bool recycled = false;
      const float before = was ? Deepest(c.manifold) : 0.0f;
      const bool now = UpdateManifold(w, &c, &recycled);
      if (flag == kContactTouching) UpdatePushOut(*w, &c, before, now);
      if (now != was) {
        w->touch_change[i] = now ? 1 : 2;
      } else if (recycled) {
        w->touch_change[i] = 3;
      }
    }
  });
  // Collected into bit sets in index order (seed 002), whatever thread ran.
  ClearTouchChanges(w);
  for (const int32_t i : w->live_contacts) {
    const uint8_t change = w->touch_change[i];
    if (change == 1) w->begin_touching.Set(i);
    if (change == 2) w->end_touching.Set(i);
    if (change == 3) ++w->recycled_contacts;
    // The passes below read the changed contacts' ids and flags: out of the
    // cache when thousands change in a step (spinner), so asked for here.
    if (change == 1 || change == 2) {
      const char* record = reinterpret_cast<const char*>(&w->contacts[i]);
      __builtin_prefetch(record);
      __builtin_prefetch(record + offsetof(Contact, island_next));
    }
  }

  // Apply the changes in contact index order.
  const auto link_start = std::chrono::steady_clock::now();
  w->begin_touching.ForEachSet([w](int32_t i) {
    Contact& c = w->contacts[i];
    if ((c.flags & kContactSensor) != 0) {
      c.flags |= kContactSensorOverlaps;
      if ((c.flags & kContactEnableEvents) != 0) {
        const ShapeId a = MakeShapeId(*w, c.shape_a);
        const ShapeId b = MakeShapeId(*w, c.shape_b);
        const bool a_is_sensor = w->shapes[c.shape_a].is_sensor;
        w->events.sensor_begin.push_back({a_is_sensor ? a : b, a_is_sensor ? b : a});
      }
      return;
    }
    c.flags |= kContactTouching;
    if (IsIslandConstraint(*w, i)) {
      LinkContact(w, i);
    } else {
      // Touching a static or kinematic body: the other side still wakes.
      for (int32_t body : {c.body_a, c.body_b}) {
        if (w->bodies[body].island != kNullIndex) WakeIsland(w, w->bodies[body].island);
      }
    }
    if ((c.flags & kContactEnableEvents) != 0) {
      w->events.contact_begin.push_back(
          {MakeShapeId(*w, c.shape_a), MakeShapeId(*w, c.shape_b), c.manifold.normal});
    }
  });
  w->end_touching.ForEachSet([w](int32_t i) {
    Contact& c = w->contacts[i];
    EmitEnd(w, c, EndEventTarget::kCurrentStep);
    if ((c.flags & kContactSensor) != 0) {
      c.flags &= ~kContactSensorOverlaps;
      return;
    }
    if (c.island != kNullIndex) UnlinkContact(w, i);
    c.flags &= ~kContactTouching;
  });
  w->island_link_ms = std::chrono::duration<float, std::milli>(
                          std::chrono::steady_clock::now() - link_start)
                          .count();
}

}  // namespace atl
