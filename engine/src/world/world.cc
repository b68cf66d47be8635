#include "atoll/world.h"

#include <algorithm>
#include <atomic>
#include <chrono>

#include "absl/strings/str_cat.h"
#include "atoll/constants.h"
#include "core/prefetch.h"
#include "dynamics/contact_manager.h"
#include "dynamics/continuous.h"
#include "dynamics/island.h"
#include "dynamics/solver.h"
#include "world/world_internal.h"
#include "world/world_state.h"

namespace atl {

// The step's scratch memory lives beside the state but is not part of it.
struct WorldScratch {
  SolverScratch solver;
  ContinuousScratch continuous;
};

namespace {

absl::Status BadId(const char* kind, uint32_t index) {
  return absl::NotFoundError(
      absl::StrCat(kind, " id ", index, " does not name a live ", kind, " of this world"));
}

}  // namespace

absl::Status CheckBody(const WorldState& w, BodyId id) {
  if (!id.IsValid()) return absl::InvalidArgumentError("body id is null");
  if (id.world != w.def.world_id) {
    return absl::InvalidArgumentError(absl::StrCat("body id belongs to world ", id.world,
                                                   ", not ", w.def.world_id));
  }
  if (!w.body_ids.Matches(static_cast<int32_t>(id.index), id.generation)) {
    return BadId("body", id.index);
  }
  return absl::OkStatus();
}

void WakeBody(WorldState* w, int32_t body) {
  Body& b = w->bodies[body];
  if (b.island != kNullIndex) {
    WakeIsland(w, b.island);
  } else if (b.type == BodyType::kKinematic && !b.awake) {
    b.awake = true;
    RefileBodyProxies(w, body);
  }
  b.sleep_time = 0.0f;
}

float ComputeBodyCoreExtent(const WorldState& w, const Body& b) {
  float extent = 0.0f;
  for (int32_t s : b.shapes) {
    extent = Max(extent, ComputeShapeCoreExtent(w.shapes[s].geometry, b.local_center));
  }
  return extent;
}

namespace {

absl::Status CheckShape(const WorldState& w, ShapeId id) {
  if (!id.IsValid()) return absl::InvalidArgumentError("shape id is null");
  if (id.world != w.def.world_id) {
    return absl::InvalidArgumentError(absl::StrCat("shape id belongs to world ", id.world,
                                                   ", not ", w.def.world_id));
  }
  if (!w.shape_ids.Matches(static_cast<int32_t>(id.index), id.generation)) {
    return BadId("shape", id.index);
  }
  return absl::OkStatus();
}

absl::Status CheckFiniteVec(const char* what, Vec2 v) {
  if (!IsFinite(v.x) || !IsFinite(v.y)) {
    return absl::InvalidArgumentError(absl::StrCat(what, " must be finite"));
  }
  return absl::OkStatus();
}

absl::Status CheckFinite(const char* what, float v) {
  if (!IsFinite(v)) return absl::InvalidArgumentError(absl::StrCat(what, " must be finite"));
  return absl::OkStatus();
}

// Finite and within +-bound (per component), naming the bound's constant.
absl::Status CheckBounded(const char* what, float v, float bound, const char* bound_name) {
  if (!IsFinite(v) || Abs(v) > bound) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " must be finite and within +-", bound_name, " (", bound, ")"));
  }
  return absl::OkStatus();
}
absl::Status CheckBoundedVec(const char* what, Vec2 v, float bound, const char* bound_name) {
  if (absl::Status s = CheckBounded(what, v.x, bound, bound_name); !s.ok()) return s;
  return CheckBounded(what, v.y, bound, bound_name);
}

// The last line of defence against single precision overflowing in the
// solve: input bounds, mass limits and the speed caps keep every scene found
// so far finite, but a badly conditioned constraint (a rigid joint whose
// anchors start kilometres apart) can still make one NaN. Stepping on would
// spread it through every contact and abort on a NaN box; instead the world
// stops here, deterministically, with an error naming the body, and every
// later Step returns the same error.
absl::Status CheckSolvedBodies(WorldState* w) {
  for (int32_t i : w->scratch->solver.awake_bodies) {
    const Body& b = w->bodies[i];
    if (IsValid(b.center) && IsFinite(b.transform.q.c) && IsFinite(b.transform.q.s) &&
        IsValid(b.linear_velocity) && IsFinite(b.angular_velocity)) {
      continue;
    }
    w->diverged = absl::StrCat(
        "the world diverged at step ", w->step_count, ": body ", i,
        " left the solve with a position or velocity that is not finite (a badly "
        "conditioned joint or contact, such as joint anchors kilometres apart); it cannot step "
        "further");
    return absl::InternalError(w->diverged);
  }
  return absl::OkStatus();
}

AABB ShapeAabb(const Shape& shape, const Transform& xf) {
  return Inflate(ComputeShapeAABB(shape.geometry, xf), kSpeculativeDistance);
}

// Wakes every body that touches `body` (something under or beside them
// changed).
void WakeTouching(WorldState* w, int32_t body) {
  for (int32_t c : w->bodies[body].contacts) {
    const Contact& contact = w->contacts[c];
    const int32_t other = contact.body_a == body ? contact.body_b : contact.body_a;
    WakeBody(w, other);
  }
}

// Mass, center of mass and inertia from the body's shapes.
void UpdateBodyMass(WorldState* w, int32_t body_index) {
  Body& b = w->bodies[body_index];
  b.mass = b.inv_mass = b.inertia = b.inv_inertia = 0.0f;
  b.local_center = {0.0f, 0.0f};
  b.max_extent = 0.0f;
  b.min_extent = 0.0f;
  b.core_extent = 0.0f;
  for (size_t i = 0; i < b.shapes.size(); ++i) {
    const float extent = ComputeShapeMinExtent(w->shapes[b.shapes[i]].geometry);
    b.min_extent = i == 0 ? extent : Min(b.min_extent, extent);
  }
  if (b.type != BodyType::kDynamic) {
    b.center = b.transform.p;
    // Kinematic bodies still need an extent for their sleep test.
    for (int32_t s : b.shapes) {
      b.max_extent = Max(b.max_extent, ComputeShapeExtent(w->shapes[s].geometry, {0.0f, 0.0f}));
    }
    b.core_extent = ComputeBodyCoreExtent(*w, b);
    return;
  }
  float mass = 0.0f;
  float inertia_about_origin = 0.0f;
  Vec2 weighted_center{0.0f, 0.0f};
  for (int32_t s : b.shapes) {
    const Shape& shape = w->shapes[s];
    if (shape.density == 0.0f) continue;
    const MassData md = ComputeShapeMass(shape.geometry, shape.density);
    mass += md.mass;
    weighted_center = MulAdd(weighted_center, md.mass, md.center);
    // Parallel axis: inertia about the body origin.
    inertia_about_origin += md.rotational_inertia + md.mass * Dot(md.center, md.center);
  }
  if (mass > 0.0f) {
    b.mass = mass;
    b.inv_mass = 1.0f / mass;
    b.local_center = (1.0f / mass) * weighted_center;
    const float inertia = inertia_about_origin - mass * Dot(b.local_center, b.local_center);
    if (inertia > 0.0f && !b.fixed_rotation) {
      b.inertia = inertia;
      b.inv_inertia = 1.0f / inertia;
    }
  } else {
    // A dynamic body without density still moves, as a 1 kg point.
    b.mass = 1.0f;
    b.inv_mass = 1.0f;
  }
  for (int32_t s : b.shapes) {
    b.max_extent = Max(b.max_extent, ComputeShapeExtent(w->shapes[s].geometry, b.local_center));
  }
  b.core_extent = ComputeBodyCoreExtent(*w, b);
  b.center = TransformPoint(b.transform, b.local_center);
}

void CreateProxy(WorldState* w, int32_t shape_index) {
  Shape& shape = w->shapes[shape_index];
  const Body& b = w->bodies[shape.body];
  shape.aabb = ShapeAabb(shape, b.transform);
  ProxyData data;
  data.body_id = static_cast<uint32_t>(shape.body);
  data.is_static = ProxyIsStatic(b);
  data.filter = shape.filter;
  w->broad_phase->CreateProxyWithId(shape_index, shape.aabb, data);
  shape.has_proxy = true;
}

void DestroyProxy(WorldState* w, int32_t shape_index) {
  Shape& shape = w->shapes[shape_index];
  if (!shape.has_proxy) return;
  w->broad_phase->DestroyProxy(shape_index);
  shape.has_proxy = false;
}

// Ends and destroys every contact of `shape_index` (or of the whole body
// when shape_index is kNullIndex).
void DestroyContactsOf(WorldState* w, int32_t body, int32_t shape_index) {
  std::vector<int32_t> doomed;
  for (int32_t c : w->bodies[body].contacts) {
    const Contact& contact = w->contacts[c];
    if (shape_index == kNullIndex || contact.shape_a == shape_index ||
        contact.shape_b == shape_index) {
      doomed.push_back(c);
    }
  }
  // Index order, so events and island edits never depend on array order.
  std::sort(doomed.begin(), doomed.end());
  for (int32_t c : doomed) DestroyContact(w, c, EndEventTarget::kNextStep, /*wake=*/true);
}

void UpdateBodyProxies(WorldState* w, int32_t body) {
  const Body& b = w->bodies[body];
  for (int32_t s : b.shapes) {
    Shape& shape = w->shapes[s];
    if (!shape.has_proxy) continue;
    shape.aabb = ShapeAabb(shape, b.transform);
    w->broad_phase->MoveProxy(s, shape.aabb);
  }
}

// New boxes for the shapes of every body the solver moved: computed in
// parallel (each shape its own slot) and handed to the broad phase there
// too where its strategy only stores them (BoxesMoveInPlace); otherwise,
// and for a static proxy, in order afterwards.
void UpdateAwakeBounds(WorldState* w) {
  const std::vector<int32_t>& moved = w->scratch->solver.awake_bodies;
  BroadPhase* bp = w->broad_phase.get();
  const bool in_place = bp->BoxesMoveInPlace();
  std::atomic<bool> set_any{false}, left_over{false};
  w->executor->ParallelFor(
      static_cast<int32_t>(moved.size()), 128,
      [w, bp, in_place, &moved, &set_any, &left_over](int32_t begin, int32_t end) {
        bool set = false, left = false;
        for (int32_t k = begin; k < end; ++k) {
          // Out of the cache on a tick thread (core/prefetch.h): the body's
          // transform and shape list a few bodies ahead, then the list's
          // first shape.
          if (k + 6 < end) {
            const Body& ahead = w->bodies[moved[k + 6]];
            __builtin_prefetch(&ahead);
            __builtin_prefetch(&ahead.shapes);
          }
          if (k + 3 < end) {
            const std::vector<int32_t>& list = w->bodies[moved[k + 3]].shapes;
            if (!list.empty()) PrefetchLines(&w->shapes[list[0]]);
          }
          const Body& b = w->bodies[moved[k]];
          for (int32_t s : b.shapes) {
            Shape& shape = w->shapes[s];
            if (!shape.has_proxy) continue;
            shape.aabb = ShapeAabb(shape, b.transform);
            if (in_place && !bp->IsStatic(s)) {
              bp->SetMovedBox(s, shape.aabb);
              set = true;
            } else {
              left = true;
            }
          }
        }
        if (set) set_any.store(true, std::memory_order_relaxed);
        if (left) left_over.store(true, std::memory_order_relaxed);
      });
  if (set_any.load(std::memory_order_relaxed)) bp->FinishMovedBoxes();
  if (!left_over.load(std::memory_order_relaxed)) return;
  for (int32_t b : moved) {
    for (int32_t s : w->bodies[b].shapes) {
      if (w->shapes[s].has_proxy && !(in_place && !bp->IsStatic(s))) {
        bp->MoveProxy(s, w->shapes[s].aabb);
      }
    }
  }
}

absl::StatusOr<ShapeId> AddShape(WorldState* w, BodyId body_id, const ShapeDef& def,
                                 const ShapeGeometry& geometry) {
  if (absl::Status s = CheckBody(*w, body_id); !s.ok()) return s;
  if (absl::Status s = ValidateShapeDef(def); !s.ok()) return s;
  if (absl::Status s = ValidateShape(geometry); !s.ok()) return s;
  if (absl::Status s = ValidateShapeMass(geometry, def.density); !s.ok()) return s;
  const int32_t body = static_cast<int32_t>(body_id.index);
  const int32_t index = w->shape_ids.Alloc();
  ++w->contact_rule_epoch;  // pairs of this shape index are someone else's
  if (index >= static_cast<int32_t>(w->shapes.size())) w->shapes.resize(index + 1);
  Shape& shape = w->shapes[index];
  shape = Shape();
  shape.body = body;
  shape.geometry = geometry;
  shape.density = def.density;
  shape.friction = def.friction;
  shape.restitution = def.restitution;
  shape.filter = def.filter;
  shape.is_sensor = def.is_sensor;
  shape.enable_sensor_events = def.enable_sensor_events;
  shape.enable_contact_events = def.enable_contact_events;
  shape.enable_hit_events = def.enable_hit_events;
  shape.user_data = def.user_data;
  Body& b = w->bodies[body];
  b.shapes.push_back(index);
  if (b.type == BodyType::kDynamic) {
    UpdateBodyMass(w, body);
  } else {
    // A static or kinematic body has no mass, only extents; extend them by
    // the new shape instead of rescanning every shape (UpdateBodyMass per
    // shape made a static level of n fixtures on one body cost O(n^2) to
    // build). Min and max give the same values in any order.
    const float min_extent = ComputeShapeMinExtent(geometry);
    b.min_extent = b.shapes.size() == 1 ? min_extent : Min(b.min_extent, min_extent);
    b.max_extent = Max(b.max_extent, ComputeShapeExtent(geometry, {0.0f, 0.0f}));
    b.core_extent = Max(b.core_extent, ComputeShapeCoreExtent(geometry, {0.0f, 0.0f}));
  }
  // No wake: a body created asleep (a settled pile restored from a level
  // file) stays asleep while its shapes are attached.
  if (w->bodies[body].enabled) CreateProxy(w, index);
  return MakeShapeId(*w, index);
}

}  // namespace

World::World(std::unique_ptr<WorldState> state) : state_(std::move(state)) {}
World::~World() = default;

absl::StatusOr<std::unique_ptr<World>> World::Create(const WorldDef& def) {
  if (absl::Status s = ValidateWorldDef(def); !s.ok()) return s;
  auto state = std::make_unique<WorldState>();
  state->def = def;
  state->broad_phase = MakeBroadPhase(def.broad_phase);
  return std::unique_ptr<World>(new World(std::move(state)));
}

const WorldDef& World::def() const { return state_->def; }
int64_t World::step_count() const { return state_->step_count; }
const StepEvents& World::events() const { return state_->events; }
const StepProfile& World::profile() const { return state_->profile; }

void World::SetExecutor(Executor* executor) {
  state_->executor = executor != nullptr ? executor : SerialExecutor();
}

absl::Status World::Step(float time_step) {
  if (!IsFinite(time_step) || time_step <= 0.0f || time_step > 1.0f) {
    return absl::InvalidArgumentError(
        absl::StrCat("time_step must be finite and in (0, 1], got ", time_step));
  }
  WorldState* w = state_.get();
  if (!w->diverged.empty()) return absl::FailedPreconditionError(w->diverged);
  if (w->scratch == nullptr) w->scratch = std::make_unique<WorldScratch>();

  // Events: this step's start with what destroy calls left pending.
  w->events.Clear();
  w->events.contact_end.swap(w->pending_contact_end);
  w->events.sensor_end.swap(w->pending_sensor_end);

  using Clock = std::chrono::steady_clock;
  auto ms_since = [](Clock::time_point t) {
    return std::chrono::duration<float, std::milli>(Clock::now() - t).count();
  };
  StepProfile& profile = w->profile;
  profile = StepProfile();
  const Clock::time_point step_start = Clock::now();

  // Stages 2-3: proxies already hold this step's boxes (updated when bodies
  // moved); collect every overlapping pair in canonical order.
  Clock::time_point t = Clock::now();
  // Unchanged proxies give unchanged pairs: keep last step's.
  if (w->broad_phase->pairs_may_have_changed()) {
    w->broad_phase->set_executor(w->executor);
    w->broad_phase->UpdatePairs(&w->pairs);
  }
  profile.broad_phase = ms_since(t);
  // Stage 4: contacts and narrow phase; touching changes edit islands.
  t = Clock::now();
  UpdateContacts(w);
  profile.contacts = ms_since(t) - w->island_link_ms;
  profile.islands = w->island_link_ms;
  profile.recycled_contacts = w->recycled_contacts;
  // Stage 6: soft-step solve.
  t = Clock::now();
  Solve(w, time_step, &w->scratch->solver);
  if (absl::Status s = CheckSolvedBodies(w); !s.ok()) return s;
  BreakOverloadedJoints(w, w->scratch->solver.joints, time_step);
  profile.solve = ms_since(t);
  // Stage 7: fast bodies stop at their first impact.
  t = Clock::now();
  SolveContinuous(w, w->scratch->solver.awake_bodies, &w->scratch->continuous);
  profile.continuous = ms_since(t);
  profile.continuous_bodies = w->scratch->continuous.fast_count;
  profile.continuous_events = w->scratch->continuous.event_count;
  profile.continuous_toi_queries = w->scratch->continuous.toi_count;
  // Stage 2 for the next step: new boxes for everything that moved.
  t = Clock::now();
  UpdateAwakeBounds(w);
  profile.update_bounds = ms_since(t);
  // Stage 8: resting islands sleep; at most one resting island that lost
  // constraints is split (seed 002).
  t = Clock::now();
  UpdateSleep(w, w->scratch->solver.restless_islands);
  profile.islands += ms_since(t);
  // Stage 9: move events, in body index order.
  for (int32_t b : w->scratch->solver.awake_bodies) {
    const Body& body = w->bodies[b];
    w->events.body_moves.push_back({MakeBodyId(*w, b), body.transform, !body.awake});
  }
  profile.total = ms_since(step_start);
  w->last_time_step = time_step;
  ++w->step_count;
  return absl::OkStatus();
}

absl::StatusOr<BodyId> World::CreateBody(const BodyDef& def) {
  if (absl::Status s = ValidateBodyDef(def); !s.ok()) return s;
  WorldState* w = state_.get();
  const int32_t index = w->body_ids.Alloc();
  w->moving_bodies_stale = true;
  if (index >= static_cast<int32_t>(w->bodies.size())) w->bodies.resize(index + 1);
  Body& b = w->bodies[index];
  b = Body();
  b.type = def.type;
  b.transform = {def.position, MakeRot(def.angle)};
  b.center = def.position;
  b.center0 = def.position;
  b.rotation0 = b.transform.q;
  b.linear_velocity = def.type == BodyType::kStatic ? Vec2{} : def.linear_velocity;
  b.angular_velocity = def.type == BodyType::kStatic ? 0.0f : def.angular_velocity;
  b.linear_damping = def.linear_damping;
  b.angular_damping = def.angular_damping;
  b.gravity_scale = def.gravity_scale;
  b.sleep_threshold = def.sleep_threshold;
  b.fixed_rotation = def.fixed_rotation;
  b.is_bullet = def.is_bullet;
  b.allow_sleep = def.allow_sleep;
  b.enabled = def.is_enabled;
  b.awake = def.type != BodyType::kStatic && def.is_awake;
  b.user_data = def.user_data;
  UpdateBodyMass(w, index);
  if (b.type == BodyType::kDynamic && b.enabled) CreateIslandForBody(w, index);
  return MakeBodyId(*w, index);
}

absl::Status World::DestroyBody(BodyId id) {
  WorldState* w = state_.get();
  if (absl::Status s = CheckBody(*w, id); !s.ok()) return s;
  const int32_t body = static_cast<int32_t>(id.index);
  DestroyJointsOfBody(w, body);
  DestroyContactsOf(w, body, kNullIndex);
  RemoveBodyFromIsland(w, body);
  for (int32_t s : w->bodies[body].shapes) {
    DestroyProxy(w, s);
    w->shapes[s] = Shape();
    w->shape_ids.Free(s);
    ++w->contact_rule_epoch;
  }
  w->bodies[body] = Body();
  w->body_ids.Free(body);
  w->moving_bodies_stale = true;
  return absl::OkStatus();
}

bool World::IsValid(BodyId id) const { return CheckBody(*state_, id).ok(); }
bool World::IsValid(ShapeId id) const { return CheckShape(*state_, id).ok(); }

absl::StatusOr<BodyInfo> World::GetBody(BodyId id) const {
  const WorldState& w = *state_;
  if (absl::Status s = CheckBody(w, id); !s.ok()) return s;
  const Body& b = w.bodies[id.index];
  BodyInfo info;
  info.type = b.type;
  info.transform = b.transform;
  info.world_center = b.center;
  info.local_center = b.local_center;
  info.angle = GetAngle(b.transform.q);
  info.linear_velocity = b.linear_velocity;
  info.angular_velocity = b.angular_velocity;
  info.mass = b.mass;
  info.inertia = b.inertia;
  info.gravity_scale = b.gravity_scale;
  info.linear_damping = b.linear_damping;
  info.angular_damping = b.angular_damping;
  info.is_awake = b.awake;
  info.is_enabled = b.enabled;
  info.is_bullet = b.is_bullet;
  info.fixed_rotation = b.fixed_rotation;
  info.allow_sleep = b.allow_sleep;
  info.user_data = b.user_data;
  return info;
}

std::vector<BodyId> World::GetBodyIds() const {
  std::vector<BodyId> ids;
  for (int32_t i = 0; i < state_->body_ids.Capacity(); ++i) {
    if (state_->body_ids.IsAlive(i)) ids.push_back(MakeBodyId(*state_, i));
  }
  return ids;
}

absl::Status World::SetTransform(BodyId id, Vec2 position, float angle) {
  WorldState* w = state_.get();
  if (absl::Status s = CheckBody(*w, id); !s.ok()) return s;
  if (absl::Status s = CheckFiniteVec("position", position); !s.ok()) return s;
  if (absl::Status s = CheckFinite("angle", angle); !s.ok()) return s;
  if (Abs(position.x) > kWorldBound || Abs(position.y) > kWorldBound) {
    return absl::InvalidArgumentError("position must lie within the world bound (1e4 m)");
  }
  const int32_t body = static_cast<int32_t>(id.index);
  Body& b = w->bodies[body];
  b.transform = {position, MakeRot(angle)};
  b.center = TransformPoint(b.transform, b.local_center);
  b.center0 = b.center;
  b.rotation0 = b.transform.q;
  UpdateBodyProxies(w, body);
  WakeBody(w, body);
  WakeTouching(w, body);
  return absl::OkStatus();
}

absl::Status World::SetLinearVelocity(BodyId id, Vec2 velocity) {
  WorldState* w = state_.get();
  if (absl::Status s = CheckBody(*w, id); !s.ok()) return s;
  if (absl::Status s = CheckBoundedVec("velocity", velocity, kMaxBodySpeed, "kMaxBodySpeed");
      !s.ok()) {
    return s;
  }
  Body& b = w->bodies[id.index];
  if (b.type == BodyType::kStatic) return absl::OkStatus();
  if (LengthSquared(velocity) > 0.0f) WakeBody(w, static_cast<int32_t>(id.index));
  b.linear_velocity = velocity;
  return absl::OkStatus();
}

absl::Status World::SetAngularVelocity(BodyId id, float velocity) {
  WorldState* w = state_.get();
  if (absl::Status s = CheckBody(*w, id); !s.ok()) return s;
  if (absl::Status s =
          CheckBounded("velocity", velocity, kMaxBodyAngularSpeed, "kMaxBodyAngularSpeed");
      !s.ok()) {
    return s;
  }
  Body& b = w->bodies[id.index];
  if (b.type == BodyType::kStatic || b.fixed_rotation) return absl::OkStatus();
  if (velocity != 0.0f) WakeBody(w, static_cast<int32_t>(id.index));
  b.angular_velocity = velocity;
  return absl::OkStatus();
}

absl::Status World::ApplyForce(BodyId id, Vec2 force, Vec2 point, bool wake) {
  WorldState* w = state_.get();
  if (absl::Status s = CheckBody(*w, id); !s.ok()) return s;
  if (absl::Status s = CheckBoundedVec("force", force, kMaxApplied, "kMaxApplied");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckFiniteVec("point", point); !s.ok()) return s;
  Body& b = w->bodies[id.index];
  if (b.type != BodyType::kDynamic) return absl::OkStatus();
  if (wake) WakeBody(w, static_cast<int32_t>(id.index));
  if (!b.awake) return absl::OkStatus();
  b.force += force;
  b.torque += Cross(point - b.center, force);
  return absl::OkStatus();
}

absl::Status World::ApplyForceToCenter(BodyId id, Vec2 force, bool wake) {
  WorldState* w = state_.get();
  if (absl::Status s = CheckBody(*w, id); !s.ok()) return s;
  return ApplyForce(id, force, w->bodies[id.index].center, wake);
}

absl::Status World::ApplyTorque(BodyId id, float torque, bool wake) {
  WorldState* w = state_.get();
  if (absl::Status s = CheckBody(*w, id); !s.ok()) return s;
  if (absl::Status s = CheckBounded("torque", torque, kMaxApplied, "kMaxApplied");
      !s.ok()) {
    return s;
  }
  Body& b = w->bodies[id.index];
  if (b.type != BodyType::kDynamic) return absl::OkStatus();
  if (wake) WakeBody(w, static_cast<int32_t>(id.index));
  if (b.awake) b.torque += torque;
  return absl::OkStatus();
}

absl::Status World::ApplyLinearImpulse(BodyId id, Vec2 impulse, Vec2 point, bool wake) {
  WorldState* w = state_.get();
  if (absl::Status s = CheckBody(*w, id); !s.ok()) return s;
  if (absl::Status s = CheckBoundedVec("impulse", impulse, kMaxApplied, "kMaxApplied");
      !s.ok()) {
    return s;
  }
  if (absl::Status s = CheckFiniteVec("point", point); !s.ok()) return s;
  Body& b = w->bodies[id.index];
  if (b.type != BodyType::kDynamic) return absl::OkStatus();
  if (wake) WakeBody(w, static_cast<int32_t>(id.index));
  if (!b.awake) return absl::OkStatus();
  b.linear_velocity = MulAdd(b.linear_velocity, b.inv_mass, impulse);
  b.angular_velocity += b.inv_inertia * Cross(point - b.center, impulse);
  return absl::OkStatus();
}

absl::Status World::ApplyAngularImpulse(BodyId id, float impulse, bool wake) {
  WorldState* w = state_.get();
  if (absl::Status s = CheckBody(*w, id); !s.ok()) return s;
  if (absl::Status s = CheckBounded("impulse", impulse, kMaxApplied, "kMaxApplied");
      !s.ok()) {
    return s;
  }
  Body& b = w->bodies[id.index];
  if (b.type != BodyType::kDynamic) return absl::OkStatus();
  if (wake) WakeBody(w, static_cast<int32_t>(id.index));
  if (b.awake) b.angular_velocity += b.inv_inertia * impulse;
  return absl::OkStatus();
}

absl::Status World::SetAwake(BodyId id, bool awake) {
  WorldState* w = state_.get();
  if (absl::Status s = CheckBody(*w, id); !s.ok()) return s;
  Body& b = w->bodies[id.index];
  if (awake) {
    WakeBody(w, static_cast<int32_t>(id.index));
  } else if (b.island != kNullIndex) {
    SleepIsland(w, b.island);
  } else if (b.type == BodyType::kKinematic && b.awake) {
    b.awake = false;
    RefileBodyProxies(w, static_cast<int32_t>(id.index));
  }
  return absl::OkStatus();
}

absl::Status World::SetEnabled(BodyId id, bool enabled) {
  WorldState* w = state_.get();
  if (absl::Status s = CheckBody(*w, id); !s.ok()) return s;
  const int32_t body = static_cast<int32_t>(id.index);
  Body& b = w->bodies[body];
  if (b.enabled == enabled) return absl::OkStatus();
  if (!enabled) {
    DestroyContactsOf(w, body, kNullIndex);
    // Its joints stay but go idle; they stop linking islands. Jointed
    // bodies wake: what held them changed.
    for (int32_t j : b.joints) {
      UnlinkJoint(w, j);
      const int32_t other = OtherJointBody(w->joints[j], body);
      if (other != kNullIndex) WakeBody(w, other);
    }
    RemoveBodyFromIsland(w, body);
    for (int32_t s : b.shapes) DestroyProxy(w, s);
    b.enabled = false;
  } else {
    b.enabled = true;
    for (int32_t s : b.shapes) CreateProxy(w, s);
    if (b.type == BodyType::kDynamic) {
      b.awake = true;
      CreateIslandForBody(w, body);
    }
    // In index order, so the merges do not depend on the list order.
    std::vector<int32_t> joints = b.joints;
    std::sort(joints.begin(), joints.end());
    for (int32_t j : joints) {
      if (IsIslandJoint(*w, j)) {
        LinkJoint(w, j);
      } else {
        const int32_t other = OtherJointBody(w->joints[j], body);
        if (other != kNullIndex) WakeBody(w, other);
      }
    }
  }
  return absl::OkStatus();
}

absl::Status World::SetBullet(BodyId id, bool is_bullet) {
  if (absl::Status s = CheckBody(*state_, id); !s.ok()) return s;
  state_->bodies[id.index].is_bullet = is_bullet;
  return absl::OkStatus();
}

absl::Status World::SetGravityScale(BodyId id, float scale) {
  if (absl::Status s = CheckBody(*state_, id); !s.ok()) return s;
  if (absl::Status s =
          CheckBounded("gravity_scale", scale, kMaxGravityScale, "kMaxGravityScale");
      !s.ok()) {
    return s;
  }
  state_->bodies[id.index].gravity_scale = scale;
  WakeBody(state_.get(), static_cast<int32_t>(id.index));
  return absl::OkStatus();
}

absl::StatusOr<ShapeId> World::CreateCircleShape(BodyId body, const ShapeDef& def,
                                                 const Circle& circle) {
  return AddShape(state_.get(), body, def, ShapeGeometry(circle));
}
absl::StatusOr<ShapeId> World::CreateCapsuleShape(BodyId body, const ShapeDef& def,
                                                  const Capsule& capsule) {
  return AddShape(state_.get(), body, def, ShapeGeometry(capsule));
}
absl::StatusOr<ShapeId> World::CreatePolygonShape(BodyId body, const ShapeDef& def,
                                                  const Polygon& polygon) {
  return AddShape(state_.get(), body, def, ShapeGeometry(polygon));
}
absl::StatusOr<ShapeId> World::CreateSegmentShape(BodyId body, const ShapeDef& def,
                                                  const Segment& segment) {
  return AddShape(state_.get(), body, def, ShapeGeometry(segment));
}

absl::StatusOr<ShapeId> World::CreateChainSegmentShape(BodyId body, const ShapeDef& def,
                                                       const ChainSegment& segment) {
  return AddShape(state_.get(), body, def, ShapeGeometry(segment));
}

absl::StatusOr<std::vector<ShapeId>> World::CreateChain(BodyId body, const ShapeDef& def,
                                                        std::span<const Vec2> points,
                                                        bool loop) {
  if (absl::Status s = CheckBody(*state_, body); !s.ok()) return s;
  if (absl::Status s = ValidateShapeDef(def); !s.ok()) return s;
  absl::StatusOr<std::vector<ChainSegment>> segments = MakeChainSegments(points, loop);
  if (!segments.ok()) return segments.status();
  std::vector<ShapeId> ids;
  ids.reserve(segments->size());
  for (const ChainSegment& segment : *segments) {
    absl::StatusOr<ShapeId> id = AddShape(state_.get(), body, def, ShapeGeometry(segment));
    ATOLL_ASSERT(id.ok());  // everything was validated above
    ids.push_back(*id);
  }
  return ids;
}

absl::Status World::DestroyShape(ShapeId id) {
  WorldState* w = state_.get();
  if (absl::Status s = CheckShape(*w, id); !s.ok()) return s;
  const int32_t shape = static_cast<int32_t>(id.index);
  const int32_t body = w->shapes[shape].body;
  DestroyContactsOf(w, body, shape);
  DestroyProxy(w, shape);
  std::vector<int32_t>& list = w->bodies[body].shapes;
  list.erase(std::find(list.begin(), list.end(), shape));
  w->shapes[shape] = Shape();
  w->shape_ids.Free(shape);
  ++w->contact_rule_epoch;
  UpdateBodyMass(w, body);
  WakeBody(w, body);
  return absl::OkStatus();
}

absl::StatusOr<BodyId> World::GetShapeBody(ShapeId id) const {
  if (absl::Status s = CheckShape(*state_, id); !s.ok()) return s;
  return MakeBodyId(*state_, state_->shapes[id.index].body);
}

absl::StatusOr<ShapeGeometry> World::GetShapeGeometry(ShapeId id) const {
  if (absl::Status s = CheckShape(*state_, id); !s.ok()) return s;
  return state_->shapes[id.index].geometry;
}

absl::StatusOr<AABB> World::GetShapeAabb(ShapeId id) const {
  if (absl::Status s = CheckShape(*state_, id); !s.ok()) return s;
  const Shape& shape = state_->shapes[id.index];
  if (shape.has_proxy) return shape.aabb;
  return ShapeAabb(shape, state_->bodies[shape.body].transform);
}

AABB World::GetBounds() const {
  const WorldState& w = *state_;
  bool any = false;
  AABB bounds{{-0.5f, -0.5f}, {0.5f, 0.5f}};
  for (int32_t i = 0; i < w.shape_ids.Capacity(); ++i) {
    if (!w.shape_ids.IsAlive(i)) continue;
    const Shape& shape = w.shapes[i];
    const AABB box = ShapeAabb(shape, w.bodies[shape.body].transform);
    bounds = any ? Union(bounds, box) : box;
    any = true;
  }
  return bounds;
}

int32_t World::GetBodyCount() const { return state_->body_ids.Count(); }

WorldCounters World::GetCounters() const {
  const WorldState& w = *state_;
  WorldCounters c;
  c.bodies = w.body_ids.Count();
  c.shapes = w.shape_ids.Count();
  c.contacts = w.contact_ids.Count();
  c.joints = w.joint_ids.Count();
  for (int32_t i = 0; i < w.body_ids.Capacity(); ++i) {
    if (w.body_ids.IsAlive(i) && w.bodies[i].awake && w.bodies[i].type != BodyType::kStatic) {
      ++c.awake_bodies;
    }
  }
  w.contact_ids.ForEachAlive([&w, &c](int32_t i) {
    if ((w.contacts[i].flags & kContactTouching) != 0) ++c.touching_contacts;
  });
  for (int32_t i = 0; i < w.island_ids.Capacity(); ++i) {
    if (!w.island_ids.IsAlive(i)) continue;
    ++c.islands;
    if (w.islands[i].awake) ++c.awake_islands;
  }
  return c;
}

}  // namespace atl

namespace atl {

void RefreshMovingBodies(WorldState* w) {
  if (!w->moving_bodies_stale) return;
  w->moving_bodies.clear();
  for (int32_t i = 0; i < w->body_ids.Capacity(); ++i) {
    if (w->body_ids.IsAlive(i) && w->bodies[i].type != BodyType::kStatic) {
      w->moving_bodies.push_back(i);
    }
  }
  w->moving_bodies_stale = false;
}

void RefileBodyProxies(WorldState* w, int32_t body) {
  const Body& b = w->bodies[body];
  // WorldState::refiled_since_match.
  if (w->refiled_since_match.size() <= static_cast<size_t>(body)) {
    w->refiled_since_match.resize(static_cast<size_t>(w->body_ids.Capacity()), 0);
  }
  if (w->refiled_since_match[body] == 0) {
    w->refiled_since_match[body] = 1;
    w->refiled_bodies.push_back(body);
  }
  for (int32_t s : b.shapes) {
    const Shape& shape = w->shapes[s];
    if (!shape.has_proxy) continue;
    ProxyData data;
    data.body_id = static_cast<uint32_t>(body);
    data.is_static = ProxyIsStatic(b);
    data.filter = shape.filter;
    w->broad_phase->DestroyProxy(s);
    w->broad_phase->CreateProxyWithId(s, shape.aabb, data);
  }
}

WorldState::WorldState() = default;
WorldState::~WorldState() = default;
WorldState::WorldState(WorldState&&) noexcept = default;
WorldState& WorldState::operator=(WorldState&&) noexcept = default;
}  // namespace atl
