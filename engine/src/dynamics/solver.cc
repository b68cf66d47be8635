#include "dynamics/solver.h"

#include <algorithm>
#include <array>
#include <cstddef>

#include "atoll/assert.h"
#include "atoll/constants.h"
#include "atoll/executor.h"
#include "core/prefetch.h"
#include "dynamics/island.h"
#include "dynamics/joints/joint.h"
#include "dynamics/solver_body4.h"
#include "world/world_state.h"

namespace atl {
namespace {

// Moving bodies a block of GatherBodies walks.
constexpr int32_t kGatherBlock = 1024;

// Whether a moving body gets a solver slot this step.
inline bool Solved(const Body& b) { return b.awake && b.enabled; }

// GatherBodies' work on w->moving_bodies[first, last): gives each awake
// body of them the next slot from `slot` on, in order.
void GatherBlock(WorldState* w, float h, SolverScratch* s, size_t first, size_t last,
                 int32_t slot) {
  for (size_t k = first; k < last; ++k) {
    // A body a few ahead, out of the cache on a tick thread (core/prefetch.h).
    if (k + 4 < last) PrefetchLines(&w->bodies[w->moving_bodies[k + 4]]);
    const int32_t i = w->moving_bodies[k];
    Body& b = w->bodies[i];
    b.solver_index = kNullIndex;
    if (!Solved(b)) continue;
    b.solver_index = slot;
    s->slot_of_body[i] = slot;
    s->awake_bodies[slot] = i;
    s->centers[slot] = b.center;
    SolverBody sb;
    sb.linear_velocity = b.linear_velocity;
    sb.angular_velocity = b.angular_velocity;
    s->bodies[slot] = sb;
    SolverBodyParams p;
    p.body = i;
    if (b.type == BodyType::kDynamic) {
      p.inv_mass = b.inv_mass;
      p.inv_inertia = b.inv_inertia;
      const Vec2 gravity = b.gravity_scale * w->def.gravity;
      p.linear_kick = h * (gravity + p.inv_mass * b.force);
      p.angular_kick = h * p.inv_inertia * b.torque;
    }
    // Undamped (the usual case): the scale is 1 / (1 + h * 0), exactly 1,
    // without the division.
    if (b.linear_damping != 0.0f) p.linear_damping_scale = 1.0f / (1.0f + h * b.linear_damping);
    if (b.angular_damping != 0.0f) {
      p.angular_damping_scale = 1.0f / (1.0f + h * b.angular_damping);
    }
    s->params[slot] = p;
    b.center0 = b.center;
    b.rotation0 = b.transform.q;
    ++slot;
  }
}

// Awake kinematic and dynamic bodies get solver slots, in body index order.
// `h` is the substep. Blocks of the moving bodies count their awake ones,
// then fill their slots, both in parallel: the slots come out the same at
// any thread count.
void GatherBodies(WorldState* w, float h, SolverScratch* s) {
  // Static bodies never get a slot (their solver_index stays null), so
  // only the moving ones are walked; and only last step's slots are
  // cleared (with a restored world, the scratch's last step was the old
  // world's, whose slots are cleared all the same).
  RefreshMovingBodies(w);
  const size_t capacity = static_cast<size_t>(w->body_ids.Capacity());
  for (const int32_t i : s->awake_bodies) {
    if (static_cast<size_t>(i) < s->slot_of_body.size()) s->slot_of_body[i] = kNullIndex;
  }
  s->slot_of_body.resize(capacity, kNullIndex);
  const size_t moving = w->moving_bodies.size();
  const int32_t blocks = static_cast<int32_t>((moving + kGatherBlock - 1) / kGatherBlock);
  auto block_range = [moving](int32_t block, size_t* first, size_t* last) {
    *first = static_cast<size_t>(block) * kGatherBlock;
    *last = std::min(moving, *first + kGatherBlock);
  };
  // Each block's first slot: its awake bodies counted, then summed in order.
  std::vector<int32_t>& starts = s->gather_starts;
  starts.assign(static_cast<size_t>(blocks) + 1, 0);
  w->executor->ParallelFor(blocks, 1, [&](int32_t begin, int32_t end) {
    for (int32_t block = begin; block < end; ++block) {
      size_t first, last;
      block_range(block, &first, &last);
      int32_t awake = 0;
      for (size_t k = first; k < last; ++k) {
        awake += Solved(w->bodies[w->moving_bodies[k]]) ? 1 : 0;
      }
      starts[static_cast<size_t>(block) + 1] = awake;
    }
  });
  for (int32_t block = 0; block < blocks; ++block) starts[block + 1] += starts[block];
  const size_t count = static_cast<size_t>(starts[static_cast<size_t>(blocks)]);
  s->awake_bodies.resize(count);
  s->bodies.resize(count);
  s->params.resize(count);
  s->centers.resize(count);
  w->executor->ParallelFor(blocks, 1, [&](int32_t begin, int32_t end) {
    for (int32_t block = begin; block < end; ++block) {
      size_t first, last;
      block_range(block, &first, &last);
      GatherBlock(w, h, s, first, last, starts[static_cast<size_t>(block)]);
    }
  });
}

// Grains of the parallel stages: enough work per block to pay for claiming
// it.
constexpr int32_t kBodyGrain = 256;
constexpr int32_t kConstraintGrain = 64;
constexpr int32_t kGroupGrain = kConstraintGrain / 4;
// How many groups ahead the passes that reach the world's contacts ask for
// them (PrefetchContact): far enough to hide a miss, near enough to keep
// the lines.
constexpr int32_t kPrefetchGroups = 4;

// Asks the memory system for the lines of contact i that PrepareContact and
// StoreImpulses touch.
inline void PrefetchContact(const WorldState& w, int32_t i) {
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

void IntegrateVelocities(SolverScratch* s, float max_speed, int32_t begin, int32_t end) {
  const float max_speed_sq = max_speed * max_speed;
  SolverBody* bodies = s->bodies.data();
  const SolverBodyParams* params = s->params.data();
  int32_t i = begin;
  // Four bodies at a time, each lane the scalar loop below operation for
  // operation (the speed cap only where a lane needs it), so bit for bit
  // the same wherever the blocks start.
  const Float4 zero = Splat4(0.0f), max_speed4 = Splat4(max_speed);
  const Float4 max_speed_sq4 = Splat4(max_speed_sq);
  for (; i + 4 <= end; i += 4) {
    const int32_t index[4] = {i, i + 1, i + 2, i + 3};
    Bodies4 b;
    GatherVelocities(bodies, index, &b);
    // The params' rows, transposed the same way: kicks and inverse mass,
    // then damping scales and inverse inertia.
    const float* p = reinterpret_cast<const float*>(params + i);
    Float4 kick_x = Load4(p), kick_y = Load4(p + 8), kick_w = Load4(p + 16),
           inv_mass = Load4(p + 24);
    Transpose4(&kick_x, &kick_y, &kick_w, &inv_mass);
    Float4 linear_scale = Load4(p + 4), angular_scale = Load4(p + 12),
           inv_inertia = Load4(p + 20), unused = Load4(p + 28);
    Transpose4(&linear_scale, &angular_scale, &inv_inertia, &unused);
    // Kinematic bodies keep their velocity.
    const Mask4 dynamic = !(inv_mass == zero && inv_inertia == zero);
    Float4 vx = (b.vx + kick_x) * linear_scale;
    Float4 vy = (b.vy + kick_y) * linear_scale;
    const Float4 w = (b.w + kick_w) * angular_scale;
    const Float4 speed_sq = vx * vx + vy * vy;
    const Mask4 fast = speed_sq > max_speed_sq4;
    if (AnyLane(fast)) {
      const Float4 cap = max_speed4 / Sqrt4(speed_sq);
      vx = Select(fast, vx * cap, vx);
      vy = Select(fast, vy * cap, vy);
    }
    b.vx = Select(dynamic, vx, b.vx);
    b.vy = Select(dynamic, vy, b.vy);
    b.w = Select(dynamic, w, b.w);
    ScatterVelocities(bodies, index, b);
  }
  for (; i < end; ++i) {
    SolverBody& b = bodies[i];
    const SolverBodyParams& p = params[i];
    if (p.inv_mass == 0.0f && p.inv_inertia == 0.0f) continue;  // kinematic
    // v += h * (g + F/m), then implicit damping v /= 1 + h c.
    Vec2 v = b.linear_velocity + p.linear_kick;
    float w = b.angular_velocity + p.angular_kick;
    v *= p.linear_damping_scale;
    w *= p.angular_damping_scale;
    const float speed_sq = LengthSquared(v);
    if (speed_sq > max_speed_sq) v *= max_speed / Sqrt(speed_sq);
    b.linear_velocity = v;
    b.angular_velocity = w;
  }
}

// The speed limits a body moves under, whatever the solve gave it: the
// world's maximum linear speed and kMaxRotation per substep. Velocity
// integration caps the linear speed before the solve, as Box2D v3 does, but
// a rigid joint closing a gap of hundreds of metres, or a chain that pulls
// against a body a billion times lighter, can make the solve itself return
// speeds that grow from step to step until they overflow (found by the
// scene fuzzer); capped here, bodies move at most these speeds, and the
// errors that feed the next solve stay bounded.
struct SpeedCap {
  float linear;
  float linear_sq;
  float angular;
};

// Caps one body's velocities at `cap`; kinematic bodies (no inverse mass,
// no inverse inertia) keep the velocity their user gave them.
inline void CapSolvedVelocity(const SpeedCap& cap, const SolverBodyParams& p, SolverBody* b) {
  if (p.inv_mass == 0.0f && p.inv_inertia == 0.0f) return;
  const float speed_sq = LengthSquared(b->linear_velocity);
  if (speed_sq > cap.linear_sq) b->linear_velocity *= cap.linear / Sqrt(speed_sq);
  b->angular_velocity = Min(Max(b->angular_velocity, -cap.angular), cap.angular);
}

void IntegratePositions(SolverScratch* s, float h, const SpeedCap& cap, int32_t begin,
                        int32_t end) {
  SolverBody* bodies = s->bodies.data();
  const SolverBodyParams* params = s->params.data();
  int32_t i = begin;
  // Four bodies at a time, each lane the scalar loop below operation for
  // operation (the cap, then MulAdd, then IntegrateRotation's
  // NormalizeRot), so bit for bit the same wherever the blocks start.
  const Float4 h4 = Splat4(h), zero = Splat4(0.0f), one = Splat4(1.0f);
  const Float4 max_sq4 = Splat4(cap.linear_sq), max_w4 = Splat4(cap.angular),
               min_w4 = Splat4(-cap.angular);
  for (; i + 4 <= end; i += 4) {
    const int32_t index[4] = {i, i + 1, i + 2, i + 3};
    Bodies4 b;
    Gather(bodies, index, &b);
    // Rare: only a body over a limit takes the scalar cap.
    if (AnyLane((b.vx * b.vx + b.vy * b.vy > max_sq4) || (b.w > max_w4) || (b.w < min_w4))) {
      for (int32_t lane = 0; lane < 4; ++lane) {
        CapSolvedVelocity(cap, params[i + lane], &bodies[i + lane]);
      }
      Gather(bodies, index, &b);
    }
    b.dpx = b.dpx + h4 * b.vx;
    b.dpy = b.dpy + h4 * b.vy;
    const Float4 turn = h4 * b.w;
    const Float4 c = b.qc - turn * b.qs;
    const Float4 sn = b.qs + turn * b.qc;
    const Float4 mag = Sqrt4(c * c + sn * sn);
    const Float4 inv = Select(mag > zero, one / mag, zero);
    b.qc = c * inv;
    b.qs = sn * inv;
    ScatterMotion(bodies, index, b);
  }
  for (; i < end; ++i) {
    SolverBody& b = bodies[i];
    CapSolvedVelocity(cap, params[i], &b);
    b.delta_position = MulAdd(b.delta_position, h, b.linear_velocity);
    b.delta_rotation = IntegrateRotation(b.delta_rotation, h * b.angular_velocity);
  }
}

// Moves bodies [begin, end) of the solve by their push velocities, each
// capped at the push limit, and zeroes them for the next substep.
void ApplyPushes(SolverScratch* s, float h, float max_push, int32_t begin, int32_t end) {
  const float max_push_sq = max_push * max_push;
  for (int32_t i = begin; i < end; ++i) {
    Vec2& push = s->push_velocities[i];
    if (push.x == 0.0f && push.y == 0.0f) continue;
    const float speed_sq = LengthSquared(push);
    if (speed_sq > max_push_sq) push *= max_push / Sqrt(speed_sq);
    SolverBody& b = s->bodies[i];
    b.delta_position = MulAdd(b.delta_position, h, push);
    s->push_travel[i] = MulAdd(s->push_travel[i], h, push);
    b.pushed = Max(b.pushed, Min(speed_sq, max_push_sq));
    push = {0.0f, 0.0f};
  }
}

// Copies results back to bodies [begin, end) of the solve and advances their
// sleep timers (each body its own slot, so blocks may run concurrently).
void FinalizeBodies(WorldState* w, float time_step, SolverScratch* s, int32_t begin,
                    int32_t end) {
  for (int32_t i = begin; i < end; ++i) {
    const SolverBody& sb = s->bodies[i];
    Body& b = w->bodies[s->awake_bodies[i]];
    b.linear_velocity = sb.linear_velocity;
    b.angular_velocity = sb.angular_velocity;
    b.center = b.center0 + sb.delta_position;
    // The step's push-out is not motion a contact's overlap can come from
    // (UpdateContacts tells pushed-in overlap by it).
    if (!s->push_travel.empty()) b.center0 += s->push_travel[i];
    b.transform.q = NormalizeRot(MulRot(b.rotation0, sb.delta_rotation));
    b.transform.p = b.center - RotateVector(b.transform.q, b.local_center);
    b.force = {0.0f, 0.0f};
    b.torque = 0.0f;
    // Sleep timer: the fastest surface point must stay below the threshold.
    // A body pushed out of overlap faster than its sleep threshold is not
    // at rest, however slowly it moves.
    const float threshold_sq = b.sleep_threshold * b.sleep_threshold;
    if (!b.allow_sleep || !w->def.enable_sleep || sb.pushed > threshold_sq) {
      b.sleep_time = 0.0f;
    } else {
      const float surface_speed = Abs(b.angular_velocity) * b.max_extent;
      const float speed_sq = LengthSquared(b.linear_velocity);
      const float limit = b.sleep_threshold;
      if (speed_sq > limit * limit || surface_speed > limit) {
        b.sleep_time = 0.0f;
      } else {
        b.sleep_time += time_step;
      }
    }
  }
}

// After FinalizeBodies, serially in body index order: moving kinematic
// bodies keep what they touch or hold awake, and the islands that cannot
// sleep yet are marked.
void MarkRestlessIslands(WorldState* w, SolverScratch* s) {
  s->restless_islands.assign(static_cast<size_t>(w->island_ids.Capacity()), 0);
  for (size_t i = 0; i < s->awake_bodies.size(); ++i) {
    const int32_t body = s->awake_bodies[i];
    const Body& b = w->bodies[body];
    // A moving kinematic body keeps whatever it touches or holds awake.
    if (b.type != BodyType::kKinematic || b.sleep_time != 0.0f) continue;
    for (int32_t c : b.contacts) {
      const Contact& contact = w->contacts[c];
      if ((contact.flags & kContactTouching) == 0) continue;
      const int32_t other =
          contact.body_a == body ? contact.body_b : contact.body_a;
      w->bodies[other].sleep_time = 0.0f;
      if (w->bodies[other].island != kNullIndex)
        s->restless_islands[w->bodies[other].island] = 1;
    }
    // Jointed bodies are woken too (a contact would wake them on touch; a
    // joint to a sleeping body would just stretch).
    for (int32_t j : b.joints) {
      const int32_t other = OtherJointBody(w->joints[j], body);
      if (other == kNullIndex) continue;
      Body& held = w->bodies[other];
      held.sleep_time = 0.0f;
      if (held.island == kNullIndex) continue;
      if (!held.awake) WakeIsland(w, held.island);
      s->restless_islands[held.island] = 1;
    }
  }
  const float time_to_sleep = w->def.time_to_sleep;
  for (size_t i = 0; i < s->awake_bodies.size(); ++i) {
    const Body& b = w->bodies[s->awake_bodies[i]];
    if (b.island != kNullIndex && b.sleep_time < time_to_sleep) s->restless_islands[b.island] = 1;
  }
}

void ReportHits(WorldState* w, const SolverScratch& s) {
  const float threshold = w->def.hit_event_threshold;
  // Contact index order (constraints are stored in colour order), only the
  // contacts that report hits (CollectSolverContacts listed them).
  for (const int32_t i : s.hit_contacts) {
    const Contact& c = w->contacts[s.touching_contacts[static_cast<size_t>(i)]];
    const int32_t slot = s.contact_slot_of_position[s.contact_colours.Position(i)];
    const ContactGroup& g = s.contact_groups[slot / 4];
    const int32_t lane = slot % 4;
    float best = threshold;
    int32_t best_point = -1;
    for (int32_t j = 0; j < c.manifold.point_count; ++j) {
      const float approach = -g.points[j].relative_velocity[lane];
      if (approach > best && g.points[j].max_normal_impulse[lane] > 0.0f) {
        best = approach;
        best_point = j;
      }
    }
    if (best_point < 0) continue;
    w->events.contact_hit.push_back({MakeShapeId(*w, c.shape_a), MakeShapeId(*w, c.shape_b),
                                     c.manifold.points[best_point].point, c.manifold.normal,
                                     best});
  }
}

// Packs the overflow's constraints (positions [begin, end) of
// contact_colours.order()) into groups from `first_group` on, and returns
// how many groups it made. The overflow is solved one group after another
// on one thread; if each group's lanes share no body they move, a group is
// still solved four at a time by the wide kernels. So the overflow is
// coloured again, greedily in order with as many colours as it takes (a
// pile of n bodies created at one point needs about n), and each of these
// colours is laid out four to a group: a Gauss-Seidel sweep in another
// fixed order, four constraints to a kernel call (eight where the CPU has
// AVX: two groups of one colour side by side).
int32_t PackOverflow(SolverScratch* s, int32_t begin, int32_t end, int32_t first_group) {
  const int32_t* order = s->contact_colours.order().data();
  const size_t bodies = s->params.size();
  std::vector<uint64_t>& bits = s->overflow_bits;  // per body slot, `words` words
  size_t words = 1;
  bits.assign(bodies * words, 0);
  std::vector<int32_t>& colour = s->overflow_colour;
  colour.resize(static_cast<size_t>(end - begin));
  std::vector<int32_t>& sizes = s->overflow_sizes;
  sizes.assign(64, 0);
  auto row = [&](int32_t slot) { return bits.data() + static_cast<size_t>(slot) * words; };
  for (int32_t p = begin; p < end; ++p) {
    const int32_t k = order[p];
    const int32_t slots[2] = {s->contact_layout_key[2 * k], s->contact_layout_key[2 * k + 1]};
    // The lowest colour neither body has, a word at a time.
    size_t c = 0;
    for (size_t word = 0;; ++word) {
      if (word == words) {
        // Out of colours: twice the words per body.
        std::vector<uint64_t> wider(bodies * 2 * words, 0);
        for (size_t b = 0; b < bodies; ++b) {
          std::copy(bits.begin() + b * words, bits.begin() + (b + 1) * words,
                    wider.begin() + b * 2 * words);
        }
        bits.swap(wider);
        words *= 2;
        sizes.resize(64 * words, 0);
      }
      uint64_t used = 0;
      for (int32_t slot : slots) {
        if (slot >= 0) used |= row(slot)[word];
      }
      if (used == ~uint64_t{0}) continue;
      const int bit = __builtin_ctzll(~used);
      c = 64 * word + static_cast<size_t>(bit);
      for (int32_t slot : slots) {
        if (slot >= 0) row(slot)[word] |= uint64_t{1} << bit;
      }
      break;
    }
    colour[static_cast<size_t>(p - begin)] = static_cast<int32_t>(c);
    ++sizes[c];
  }
  // Each colour's groups, colour after colour: turn sizes into first slots.
  // Every colour starts a group; the wide passes take the groups of one
  // colour two at a time (overflow_group_starts).
  int32_t slot = first_group * 4;
  s->overflow_group_starts.clear();
  for (int32_t& size : sizes) {
    const int32_t first = slot;
    if (size > 0) s->overflow_group_starts.push_back(first / 4);
    slot += (size + 3) / 4 * 4;
    size = first;
  }
  s->overflow_group_starts.push_back(slot / 4);
  for (int32_t p = begin; p < end; ++p) {
    const int32_t c = colour[static_cast<size_t>(p - begin)];
    s->contact_slot_of_position[p] = sizes[static_cast<size_t>(c)]++;
  }
  return slot / 4 - first_group;
}

// Lays the contact constraints out in groups of four, colour by colour
// (contact_colours.order()); the overflow's last, packed by PackOverflow.
void LayOutContactGroups(SolverScratch* s) {
  const ConstraintColours& colours = s->contact_colours;
  const int32_t count = static_cast<int32_t>(colours.order().size());
  s->contact_slot_of_position.resize(static_cast<size_t>(count));
  int32_t groups = 0;
  for (int32_t c = 0; c <= ConstraintColours::kColourCount; ++c) {
    s->contact_group_starts[c] = groups;
    const int32_t begin = colours.starts()[c];
    const int32_t size = colours.ColourSize(c);
    if (c == ConstraintColours::kColourCount) {
      groups += PackOverflow(s, begin, begin + size, groups);
      break;
    }
    for (int32_t k = 0; k < size; ++k) s->contact_slot_of_position[begin + k] = groups * 4 + k;
    groups += (size + 3) / 4;
  }
  s->contact_group_starts[ConstraintColours::kColourCount + 1] = groups;
  s->contact_groups.resize(static_cast<size_t>(groups));
  s->contact_position_of_slot.assign(static_cast<size_t>(groups) * 4, -1);
  for (int32_t k = 0; k < count; ++k) s->contact_position_of_slot[s->contact_slot_of_position[k]] = k;
}

// Lays the joint passes out (SolverScratch::joint_items): in each colour
// the pins four to a group, then the other joints one by one. The order
// within a colour is free (its joints share no body they move), so both
// are taken in joint order, which walks the frames front to back here and
// again when the groups are built; the overflow's joints do share bodies,
// and stay scalar in joint order.
void LayOutJoints(SolverScratch* s) {
  constexpr int32_t kColours = ConstraintColours::kColourCount;
  const ConstraintColours& colours = s->joint_colours;
  const std::vector<JointFrame>& frames = s->joint_frames;
  const int32_t count = static_cast<int32_t>(s->joints.size());
  auto grouped = [&](int32_t k) { return frames[k].pin && colours.ColourOf(k) < kColours; };
  std::array<int32_t, kColours + 1> pins{}, others{};
  for (int32_t k = 0; k < count; ++k) ++(grouped(k) ? pins : others)[colours.ColourOf(k)];
  // Per colour: its groups' first lane slot, and where its other joints'
  // items go (after its groups' items).
  std::array<int32_t, kColours + 1> next_slot{}, next_other{};
  int32_t items = 0, groups = 0;
  s->joint_items.clear();
  for (int32_t c = 0; c <= kColours; ++c) {
    s->joint_item_starts[c] = items;
    const int32_t colour_groups = (pins[c] + 3) / 4;
    for (int32_t g = 0; g < colour_groups; ++g) s->joint_items.push_back(groups + g);
    s->joint_items.resize(s->joint_items.size() + others[c]);
    next_slot[c] = groups * 4;
    next_other[c] = items + colour_groups;
    groups += colour_groups;
    items += colour_groups + others[c];
  }
  s->joint_item_starts[kColours + 1] = items;
  s->pin_position_of_slot.assign(static_cast<size_t>(groups) * 4, -1);
  s->pin_slot_of_position.assign(static_cast<size_t>(count), -1);
  for (int32_t k = 0; k < count; ++k) {
    const int32_t c = colours.ColourOf(k);
    if (grouped(k)) {
      const int32_t slot = next_slot[c]++;
      s->pin_position_of_slot[slot] = k;
      s->pin_slot_of_position[k] = slot;
    } else {
      s->joint_items[next_other[c]++] = ~k;
    }
  }
  s->pin_groups.resize(static_cast<size_t>(groups));
}

// Records, per joint of the solve, the solver slots of the bodies it moves
// (-1 for one it does not) and whether it is a pin: everything the joint
// colouring and LayOutJoints read. Returns whether the record is last
// step's (and there are joints).
bool UpdateJointLayoutKey(SolverScratch* s) {
  const size_t count = s->joint_frames.size();
  std::vector<int32_t>& key = s->joint_layout_key;
  bool same = count > 0 && key.size() == 3 * count;
  key.resize(3 * count);
  for (size_t k = 0; k < count; ++k) {
    const JointFrame& f = s->joint_frames[k];
    const int32_t record[3] = {
        ConstraintMoves(f.index_a, f.inv_mass_a, f.inv_inertia_a) ? f.index_a : -1,
        ConstraintMoves(f.index_b, f.inv_mass_b, f.inv_inertia_b) ? f.index_b : -1,
        f.pin ? 1 : 0};
    int32_t* kept = &key[3 * k];
    same = same && kept[0] == record[0] && kept[1] == record[1] && kept[2] == record[2];
    kept[0] = record[0];
    kept[1] = record[1];
    kept[2] = record[2];
  }
  return same;
}

// Records, per touching contact of the solve, the solver slots of the
// bodies it moves (-1 for one it does not): everything the contact
// colouring and LayOutContactGroups read. Returns whether the record is
// last step's (and there are contacts).
bool UpdateContactLayoutKey(SolverScratch* s) {
  const size_t count = s->touching_contacts.size();
  std::vector<int32_t>& key = s->contact_layout_key;
  bool same = count > 0 && key.size() == 2 * count;
  key.resize(2 * count);
  for (size_t k = 0; k < 2 * count; ++k) {
    const int32_t slot = s->touching_slots[k];
    const bool moves = slot >= 0 && ConstraintMoves(slot, s->params[slot].inv_mass,
                                                    s->params[slot].inv_inertia);
    const int32_t record = moves ? slot : -1;
    same = same && key[k] == record;
    key[k] = record;
  }
  return same;
}

// Lists, colour by colour, what the push-out passes visit: in push_groups
// the contact groups with a contact of a body that has a push-out contact
// (only those bodies are pushed; their other contacts keep them from being
// pushed into their neighbours), in push_fixed the groups with a contact
// between a body the first sweep can push (one of those or a body touching
// one) and a body that cannot move (the second sweep's). A few
// push-out contacts in a large world (a body respawned inside another)
// then cost a few groups' work, not sweeps over every contact; a pile
// created in the air, a sweep with nothing against the ground.
void ListPushGroups(SolverScratch* s) {
  const std::vector<uint8_t>& pushed = s->push_bodies;
  const int32_t* order = s->contact_colours.order().data();
  auto touches_pushed = [&](int32_t k) {
    const int32_t a = s->touching_slots[2 * order[k]];
    const int32_t b = s->touching_slots[2 * order[k] + 1];
    return (a >= 0 && pushed[a] != 0) || (b >= 0 && pushed[b] != 0);
  };
  // The bodies the first sweep can give a push: the pushed ones and those
  // touching them.
  std::vector<uint8_t>& reached = s->push_reached;
  reached.assign(pushed.begin(), pushed.end());
  const size_t touching = s->touching_contacts.size();
  for (size_t t = 0; t < touching; ++t) {
    const int32_t a = s->touching_slots[2 * t], b = s->touching_slots[2 * t + 1];
    if (a >= 0 && b >= 0 && (pushed[a] != 0 || pushed[b] != 0)) reached[a] = reached[b] = 1;
  }
  // A contact of such a body with one outside the solve or without inverse
  // mass (kinematic).
  auto fixed = [&](int32_t k) {
    const int32_t a = s->touching_slots[2 * order[k]];
    const int32_t b = s->touching_slots[2 * order[k] + 1];
    const bool a_fixed = a < 0 || s->params[a].inv_mass == 0.0f;
    const bool b_fixed = b < 0 || s->params[b].inv_mass == 0.0f;
    return (a_fixed && !b_fixed && reached[b] != 0) || (b_fixed && !a_fixed && reached[a] != 0);
  };
  s->push_groups.clear();
  s->push_fixed.clear();
  for (int32_t colour = 0; colour < ConstraintColours::kColourCount; ++colour) {
    s->push_group_starts[colour] = static_cast<int32_t>(s->push_groups.size());
    s->push_fixed_starts[colour] = static_cast<int32_t>(s->push_fixed.size());
    for (int32_t g = s->contact_group_starts[colour]; g < s->contact_group_starts[colour + 1];
         ++g) {
      bool any = false, any_fixed = false;
      for (int32_t lane = 0; lane < 4; ++lane) {
        const int32_t k = s->contact_position_of_slot[g * 4 + lane];
        if (k < 0) continue;
        any = any || touches_pushed(k);
        any_fixed = any_fixed || fixed(k);
      }
      if (any) s->push_groups.push_back(g);
      if (any_fixed) s->push_fixed.push_back(g);
    }
  }
  // The overflow's constraints one by one, in the order the colouring left
  // them (contact index order), not in PackOverflow's: a pile created at
  // one point spreads into a wider, lower heap when its push-out sweeps
  // its contacts in that order (the fifty-box heap: 5.1 m high against
  // 5.8 m in the packed order).
  constexpr int32_t kOverflow = ConstraintColours::kColourCount;
  s->push_group_starts[kOverflow] = static_cast<int32_t>(s->push_groups.size());
  s->push_fixed_starts[kOverflow] = static_cast<int32_t>(s->push_fixed.size());
  for (int32_t k = s->contact_colours.starts()[kOverflow];
       k < s->contact_colours.starts()[kOverflow + 1]; ++k) {
    if (touches_pushed(k)) s->push_groups.push_back(~s->contact_slot_of_position[k]);
    if (fixed(k)) s->push_fixed.push_back(~s->contact_slot_of_position[k]);
  }
  s->push_group_starts[kOverflow + 1] = static_cast<int32_t>(s->push_groups.size());
  s->push_fixed_starts[kOverflow + 1] = static_cast<int32_t>(s->push_fixed.size());
}

// What each stage of the solve does (StageRunner::Stage::tag).
enum SolveStage : int32_t {
  kPrepareContacts,
  kPreparePins,
  kIntegrateVelocities,
  kFirstWarmStartJoints,  // the first substep's: pins compute their geometry
  kWarmStartJoints,
  kWarmStartContacts,
  kSolveJoints,
  kSolveContacts,
  kIntegratePositions,
  kPushContacts,
  kPushFixedContacts,  // the push's second sweep, contacts with a body that cannot move
  kApplyPushes,
  kRelaxJoints,
  kRelaxContacts,
  kRestitution,
  kStoreImpulses,
  kStorePinImpulses,
  kFinalizeBodies,
};

// A solve whose stages are all a single block has nothing to share between
// threads; running it on this thread saves a launch and a few hundred
// stage hand-overs.
bool SmallSolve(const StageRunner& run) {
  for (const StageRunner::Stage& stage : run.stages()) {
    if (stage.block_count() > 1) return false;
  }
  return true;
}

}  // namespace

void Solve(WorldState* w, float time_step, SolverScratch* s) {
  Executor* ex = w->executor;
  const int32_t substeps = w->def.substep_count;
  const float h = time_step / static_cast<float>(substeps);
  const float inv_h = 1.0f / h;
  GatherBodies(w, h, s);
  const bool push_out =
      CollectSolverContacts(*w, s->slot_of_body.data(), s->params, &s->touching_contacts,
                            &s->touching_slots, &s->deep_contacts, &s->push_bodies,
                            &s->hit_contacts, &s->collected);

  // Contacts stiffer than a quarter of the substep rate would ring.
  const float hertz = Min(w->def.contact_hertz, 0.25f * inv_h);
  const Softness softness = MakeSoftness(hertz, w->def.contact_damping_ratio, h);
  const float push = w->def.contact_push_max_velocity;
  JointContext joint_context;
  joint_context.h = h;
  joint_context.inv_h = inv_h;
  // Like contacts, rigid joint rows are capped at a quarter of the substep
  // rate: stiffer, long jointed structures (a chain of welds) ring and
  // gain energy under the one Gauss-Seidel sweep per substep.
  joint_context.rigid =
      MakeSoftness(Min(w->def.joint_hertz, 0.25f * inv_h), w->def.joint_damping_ratio, h);
  PrepareJoints(w, joint_context, &s->joints, &s->joint_frames);

  // Colour joints and contacts separately, so every pass still solves all
  // joints before any contact.
  const int32_t body_count = static_cast<int32_t>(s->bodies.size());
  // The joints' colouring and layout are a function of what
  // UpdateJointLayoutKey records alone: while that stays the same (a
  // mobile, a net, a ragdoll swinging awake), last step's are this step's.
  if (!UpdateJointLayoutKey(s)) {
    s->joint_colours.Colour(static_cast<int32_t>(s->joints.size()), body_count,
                            [s](int32_t k, int32_t slots[2]) {
                              slots[0] = s->joint_layout_key[3 * k];
                              slots[1] = s->joint_layout_key[3 * k + 1];
                            });
    LayOutJoints(s);
  }
  // Likewise the contacts' colouring and layout are a function of the
  // slots UpdateContactLayoutKey records: in a resting or slowly moving
  // stack the touching contacts and the bodies' slots stay the same.
  if (!UpdateContactLayoutKey(s)) {
    s->contact_colours.Colour(static_cast<int32_t>(s->touching_contacts.size()), body_count,
                              [s](int32_t k, int32_t slots[2]) {
                                slots[0] = s->contact_layout_key[2 * k];
                                slots[1] = s->contact_layout_key[2 * k + 1];
                              });
    LayOutContactGroups(s);
  }
  // Constraints are stored by colour, four to a group, so each colour's
  // pass streams through contiguous memory (random order cost more than the
  // colouring) and solves four constraints at a time (LayOutContactGroups,
  // above). Group lanes name bodies outside the solve by one more slot
  // after the bodies, which holds the static stand-in (never written: no
  // constraint moves it).
  const int32_t static_slot = body_count;
  s->bodies.push_back(kStaticSolverBody);
  s->push_travel.clear();
  if (push_out) {
    s->push_velocities.assign(s->bodies.size(), Vec2{0.0f, 0.0f});
    s->push_travel.assign(s->bodies.size(), Vec2{0.0f, 0.0f});
    ListPushGroups(s);
  }

  // The rest of the solve is one chain of parallel stages (stage_runner.h),
  // in the order of a serial solve: every pass solves the joints before the
  // contacts, colour by colour, the overflow of each last.
  const int32_t threads = ex->concurrency();
  StageRunner& run = s->stages;
  run.Clear();
  const int32_t group_count = static_cast<int32_t>(s->contact_groups.size());
  const int32_t pin_group_count = static_cast<int32_t>(s->pin_groups.size());
  const ConstraintColours::Starts& joint_starts = s->joint_item_starts;
  const ConstraintColours::Starts& group_starts = s->contact_group_starts;
  auto add_pass = [&](int32_t joint_tag, int32_t contact_tag) {
    ConstraintColours::AddStages(joint_starts, &run, joint_tag, kGroupGrain, threads);
    ConstraintColours::AddStages(group_starts, &run, contact_tag, kGroupGrain, threads);
  };
  run.Add(kPrepareContacts, 0, group_count, kGroupGrain, threads);
  run.Add(kPreparePins, 0, pin_group_count, kGroupGrain, threads);
  for (int32_t i = 0; i < substeps; ++i) {
    run.Add(kIntegrateVelocities, 0, body_count, kBodyGrain, threads);
    // Pins reuse the geometry of the last pass after a position update
    // (PinGeometry): the step's first warm start has none to reuse.
    add_pass(i == 0 ? kFirstWarmStartJoints : kWarmStartJoints, kWarmStartContacts);
    add_pass(kSolveJoints, kSolveContacts);
    run.Add(kIntegratePositions, 0, body_count, kBodyGrain, threads);
    if (push_out) {
      ConstraintColours::AddStages(s->push_group_starts, &run, kPushContacts, kGroupGrain,
                                   threads);
      ConstraintColours::AddStages(s->push_fixed_starts, &run, kPushFixedContacts, kGroupGrain,
                                   threads);
      run.Add(kApplyPushes, 0, body_count, kBodyGrain, threads);
    }
    add_pass(kRelaxJoints, kRelaxContacts);
  }
  ConstraintColours::AddStages(group_starts, &run, kRestitution, kGroupGrain, threads);
  run.Add(kStoreImpulses, 0, group_count, kBodyGrain, threads);
  run.Add(kStorePinImpulses, 0, static_cast<int32_t>(s->joints.size()), kBodyGrain, threads);
  run.Add(kFinalizeBodies, 0, body_count, kBodyGrain, threads);

  SolverBody* bodies = s->bodies.data();
  ContactGroup* groups = s->contact_groups.data();
  PinGroup* pins = s->pin_groups.data();
  const int32_t* joint_items = s->joint_items.data();
  const int32_t* joints = s->joints.data();
  const JointFrame* joint_frames = s->joint_frames.data();
  const int32_t* contact_order = s->contact_colours.order().data();
  const int32_t* position_of_slot = s->contact_position_of_slot.data();
  const float max_speed = w->def.maximum_linear_speed;
  const SpeedCap cap{max_speed, max_speed * max_speed, kMaxRotation * inv_h};
  const float restitution_threshold = w->def.restitution_threshold;
  ContactPrepareInput prepare;
  prepare.params = s->params.data();
  prepare.bodies = bodies;
  prepare.centers = s->centers.data();
  prepare.deep = s->deep_contacts.data();
  prepare.max_push = push;
  prepare.static_slot = static_slot;
  // Groups of one colour two at a time where the CPU has AVX: the same
  // results (contact_solver_avx.cc). The overflow's groups share bodies
  // from one of PackOverflow's colours to the next, so its colours go one
  // at a time; it is a single block.
  const bool wide_contacts = WideContactsEnabled();
  const int32_t overflow_begin = group_starts[ConstraintColours::kColourCount];
  const std::vector<int32_t>& overflow_starts = s->overflow_group_starts;
  auto for_each_range = [&](int32_t begin, int32_t end, auto&& range) {
    if (begin < overflow_begin) {
      range(begin, end);
      return;
    }
    ATOLL_ASSERT(begin == overflow_begin && end == overflow_starts.back());
    for (size_t k = 0; k + 1 < overflow_starts.size(); ++k) {
      range(overflow_starts[k], overflow_starts[k + 1]);
    }
  };
  run.Run(ex, /*serial=*/SmallSolve(run), [&](const StageRunner::Stage& stage, int32_t begin,
                                              int32_t end) {
    switch (stage.tag) {
      case kPrepareContacts:
        for (int32_t g = begin; g < end; ++g) {
          // The contacts of a colour are scattered over the world's: ask
          // for a later group's while this one is built.
          if (g + kPrefetchGroups < end) {
            for (int32_t lane = 0; lane < 4; ++lane) {
              const int32_t k = position_of_slot[(g + kPrefetchGroups) * 4 + lane];
              if (k >= 0) PrefetchContact(*w, s->touching_contacts[contact_order[k]]);
            }
          }
          for (int32_t lane = 0; lane < 4; ++lane) {
            const int32_t k = position_of_slot[g * 4 + lane];
            if (k < 0) {
              ClearContactLane(&groups[g], lane, static_slot);
            } else {
              const int32_t t = contact_order[k];
              PrepareContact(*w, prepare, s->touching_contacts[t], s->touching_slots[2 * t],
                             s->touching_slots[2 * t + 1], &groups[g], lane);
            }
          }
        }
        break;
      case kPreparePins:
        for (int32_t g = begin; g < end; ++g) {
          for (int32_t lane = 0; lane < 4; ++lane) {
            const int32_t k = s->pin_position_of_slot[g * 4 + lane];
            if (k < 0) {
              ClearPinLane(&pins[g], lane, static_slot);
            } else {
              PreparePin(joint_frames[k], static_slot, &pins[g], lane);
            }
          }
        }
        break;
      case kIntegrateVelocities:
        IntegrateVelocities(s, max_speed, begin, end);
        break;
      case kFirstWarmStartJoints:
      case kWarmStartJoints: {
        const PinGeometry geometry =
            stage.tag == kFirstWarmStartJoints ? PinGeometry::kCompute : PinGeometry::kReuse;
        for (int32_t k = begin; k < end; ++k) {
          const int32_t item = joint_items[k];
          if (item >= 0) {
            WarmStartPins(&pins[item], bodies, geometry);
          } else {
            WarmStartJoint(w, joints[~item], joint_frames[~item], bodies);
          }
        }
        break;
      }
      case kWarmStartContacts:
        if (wide_contacts) {
          for_each_range(begin, end, [&](int32_t first, int32_t last) {
            WarmStartContactRange(groups, first, last, bodies);
          });
          break;
        }
        for (int32_t g = begin; g < end; ++g) {
          WarmStartContacts(groups[g], bodies);
        }
        break;
      case kSolveJoints:
      case kRelaxJoints: {
        const bool use_bias = stage.tag == kSolveJoints;
        // The relax pass follows the position update.
        const PinGeometry geometry = use_bias ? PinGeometry::kReuse : PinGeometry::kCompute;
        for (int32_t k = begin; k < end; ++k) {
          const int32_t item = joint_items[k];
          if (item >= 0) {
            SolvePins(&pins[item], bodies, joint_context.rigid, use_bias, geometry);
          } else {
            SolveJoint(w, joint_context, joints[~item], joint_frames[~item], bodies, use_bias);
          }
        }
        break;
      }
      case kSolveContacts:
      case kRelaxContacts: {
        const bool use_bias = stage.tag == kSolveContacts;
        if (wide_contacts) {
          for_each_range(begin, end, [&](int32_t first, int32_t last) {
            SolveContactRange(groups, first, last, bodies, softness, inv_h, use_bias);
          });
          break;
        }
        for (int32_t g = begin; g < end; ++g) {
          SolveContacts(&groups[g], bodies, softness, inv_h, use_bias);
        }
        break;
      }
      case kIntegratePositions:
        IntegratePositions(s, h, cap, begin, end);
        break;
      case kPushContacts:
      case kPushFixedContacts: {
        const bool fixed_only = stage.tag == kPushFixedContacts;
        const std::vector<int32_t>& items = fixed_only ? s->push_fixed : s->push_groups;
        for (int32_t k = begin; k < end; ++k) {
          // A group, or (the overflow) ~(one lane's slot).
          const int32_t item = items[k];
          const int32_t group = item >= 0 ? item : ~item / 4;
          const int32_t lane = item >= 0 ? 0 : ~item % 4;
          PushContacts(groups[group], bodies, s->push_velocities.data(), inv_h, push, fixed_only,
                       lane, item >= 0 ? 4 : lane + 1);
        }
        break;
      }
      case kApplyPushes:
        ApplyPushes(s, h, push, begin, end);
        break;
      case kRestitution:
        for (int32_t g = begin; g < end; ++g) {
          ApplyRestitution(&groups[g], bodies, restitution_threshold);
        }
        break;
      case kStoreImpulses:
        for (int32_t g = begin; g < end; ++g) {
          if (g + kPrefetchGroups < end) {
            for (int32_t contact : groups[g + kPrefetchGroups].contact) {
              if (contact >= 0) PrefetchContact(*w, contact);
            }
          }
          StoreImpulses(groups[g], w);
        }
        break;
      case kStorePinImpulses:
        // In joint index order: the joints are far larger than the groups.
        for (int32_t k = begin; k < end; ++k) {
          const int32_t slot = s->pin_slot_of_position[k];
          if (slot >= 0) StorePinImpulse(pins[slot / 4], slot % 4, &w->joints[joints[k]]);
        }
        break;
      case kFinalizeBodies:
        FinalizeBodies(w, time_step, s, begin, end);
        break;
      default:
        ATOLL_ASSERT(false);
    }
  });
  ReportHits(w, *s);
  MarkRestlessIslands(w, s);
}

}  // namespace atl
