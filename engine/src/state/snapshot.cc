#include "atoll/snapshot.h"

#include "absl/strings/str_cat.h"
#include "state/byte_io.h"
#include "state/snapshot_format.h"
#include "state/xxh3.h"
#include "world/world_state.h"

namespace atl {
namespace {

constexpr size_t kHeaderSize = kSnapshotHeaderSize;
constexpr size_t kTrailerSize = kSnapshotTrailerSize;
// HashWorld's bytes in flight: well inside a core's L1 and L2.
constexpr size_t kHashChunk = 16 * 1024;
// Far above any world we host; bounds every count read from a blob so a
// corrupt length cannot make us allocate gigabytes.
constexpr uint32_t kMaxRecords = 1u << 24;

// The body is a sequence of framed records [u32 key][u32 length][bytes] in
// ascending key order; key = kind << 24 | index. Framing lets a delta work
// record by record (an unchanged record, such as a sleeping body, costs
// nothing) without understanding what is inside.
enum RecordKind : uint32_t {
  kHeaderRecord = 1,
  kBodyPool = 2,
  kBodyRecord = 3,
  kShapePool = 4,
  kShapeRecord = 5,
  kContactPool = 6,
  kContactRecord = 7,
  kJointPool = 8,
  kJointRecord = 9,
  kIslandPool = 10,
  kIslandRecord = 11,
  kEventsRecord = 12,
};
constexpr uint32_t Key(RecordKind kind, int32_t index = 0) {
  return (static_cast<uint32_t>(kind) << 24) | static_cast<uint32_t>(index);
}

// --- Writing --------------------------------------------------------------

template <typename T>
size_t ArrayBytes(const std::vector<T>& values) {
  return values.size() * sizeof(T);
}

void PutPool(BufferWriter* w, const IdPool& pool) {
  w->PutArray(pool.generations());
  w->PutArray(pool.alive());
  w->PutArray(pool.free_list());
}

RawWriter PutFilter(RawWriter w, const Filter& f) {
  w.Put(f.category_bits);
  w.Put(f.mask_bits);
  w.Put(f.group_index);
  return w;
}

RawWriter PutGeometry(RawWriter w, const ShapeGeometry& g) {
  w.Put(static_cast<uint8_t>(g.type));
  switch (g.type) {
    case ShapeType::kCircle:
      w.PutVec(g.circle.center);
      w.Put(g.circle.radius);
      break;
    case ShapeType::kCapsule:
      w.PutVec(g.capsule.center1);
      w.PutVec(g.capsule.center2);
      w.Put(g.capsule.radius);
      break;
    case ShapeType::kSegment:
      w.PutVec(g.segment.point1);
      w.PutVec(g.segment.point2);
      break;
    case ShapeType::kChainSegment:
      w.PutVec(g.chain_segment.ghost1);
      w.PutVec(g.chain_segment.segment.point1);
      w.PutVec(g.chain_segment.segment.point2);
      w.PutVec(g.chain_segment.ghost2);
      break;
    case ShapeType::kPolygon:
      w.Put(g.polygon.count);
      for (int32_t i = 0; i < g.polygon.count; ++i) {
        w.PutVec(g.polygon.vertices[i]);
        w.PutVec(g.polygon.normals[i]);
      }
      w.PutVec(g.polygon.centroid);
      w.Put(g.polygon.radius);
      break;
  }
  return w;
}

RawWriter PutBody(RawWriter w, const Body& b) {
  w.Put(static_cast<uint8_t>(b.type));
  w.PutBool(b.awake);
  w.PutBool(b.enabled);
  w.PutBool(b.is_bullet);
  w.PutBool(b.fixed_rotation);
  w.PutBool(b.allow_sleep);
  w.PutVec(b.transform.p);
  w.PutRot(b.transform.q);
  w.PutVec(b.center);
  w.PutVec(b.local_center);
  w.PutVec(b.center0);
  w.PutRot(b.rotation0);
  w.PutVec(b.linear_velocity);
  w.Put(b.angular_velocity);
  w.PutVec(b.force);
  w.Put(b.torque);
  w.Put(b.mass);
  w.Put(b.inv_mass);
  w.Put(b.inertia);
  w.Put(b.inv_inertia);
  w.Put(b.max_extent);
  w.Put(b.min_extent);
  w.Put(b.linear_damping);
  w.Put(b.angular_damping);
  w.Put(b.gravity_scale);
  w.Put(b.sleep_threshold);
  w.Put(b.sleep_time);
  w.PutArray(b.shapes);
  w.PutArray(b.contacts);
  w.PutArray(b.joints);
  w.Put(b.island);
  w.Put(b.island_prev);
  w.Put(b.island_next);
  w.Put(b.user_data);
  return w;
}

RawWriter PutShape(RawWriter w, const Shape& s) {
  w.Put(s.body);
  w = PutGeometry(w, s.geometry);
  w.Put(s.density);
  w.Put(s.friction);
  w.Put(s.restitution);
  w = PutFilter(w, s.filter);
  w.PutBool(s.is_sensor);
  w.PutBool(s.enable_sensor_events);
  w.PutBool(s.enable_contact_events);
  w.PutBool(s.enable_hit_events);
  w.PutBool(s.has_proxy);
  w.PutVec(s.aabb.lower);
  w.PutVec(s.aabb.upper);
  w.Put(s.user_data);
  return w;
}

RawWriter PutContact(RawWriter w, const Contact& c) {
  w.Put(c.shape_a);
  w.Put(c.shape_b);
  w.Put(c.body_a);
  w.Put(c.body_b);
  w.Put(c.flags);
  w.Put(c.friction);
  w.Put(c.restitution);
  w.Put(c.island);
  w.Put(c.island_prev);
  w.Put(c.island_next);
  const Manifold& m = c.manifold;
  w.PutVec(m.normal);
  w.Put(m.point_count);
  for (int32_t i = 0; i < m.point_count; ++i) {
    const ManifoldPoint& p = m.points[i];
    w.PutVec(p.point);
    w.PutVec(p.anchor_a);
    w.PutVec(p.anchor_b);
    w.Put(p.separation);
    w.Put(p.normal_impulse);
    w.Put(p.tangent_impulse);
    w.Put(p.id);
  }
  if ((c.flags & kContactRecycle) != 0) {
    const ManifoldBase& base = c.base;
    for (const Transform& xf : {base.transform_a, base.transform_b}) {
      w.PutVec(xf.p);
      w.Put(xf.q.c);
      w.Put(xf.q.s);
    }
    for (int32_t i = 0; i < m.point_count; ++i) {
      w.PutVec(base.anchor_a[i]);
      w.PutVec(base.anchor_b[i]);
      w.Put(base.separation[i]);
    }
  }
  return w;
}

// Writes / reads the per-type joint fields through the joint types' own
// field lists (VisitJointDataFields), so a new field cannot be forgotten
// here.
struct FieldWriter {
  BufferWriter* w;
  void operator()(float v) const { w->Put(v); }
  void operator()(bool v) const { w->PutBool(v); }
  void operator()(Vec2 v) const { w->PutVec(v); }
};

void PutJoint(BufferWriter* w, const Joint& j) {
  w->Put(static_cast<uint8_t>(j.type));
  w->Put(j.body_a);
  w->Put(j.body_b);
  w->PutVec(j.local_anchor_a);
  w->PutVec(j.local_anchor_b);
  w->PutBool(j.collide_connected);
  w->Put(j.user_data);
  w->Put(j.break_force);
  w->Put(j.break_torque);
  w->Put(j.island);
  w->Put(j.island_prev);
  w->Put(j.island_next);
  VisitJointDataFields(j.data, FieldWriter{w});
}

RawWriter PutIsland(RawWriter w, const Island& i) {
  w.Put(i.parent);
  w.Put(i.head_body);
  w.Put(i.tail_body);
  w.Put(i.body_count);
  w.Put(i.head_contact);
  w.Put(i.tail_contact);
  w.Put(i.contact_count);
  w.Put(i.head_joint);
  w.Put(i.tail_joint);
  w.Put(i.joint_count);
  w.Put(i.constraint_remove_count);
  w.PutBool(i.awake);
  return w;
}

void PutShapeId(BufferWriter* w, ShapeId id) {
  w->Put(id.index);
  w->Put(id.world);
  w->Put(id.generation);
}

void PutWorldDef(BufferWriter* w, const WorldDef& d) {
  w->PutVec(d.gravity);
  w->Put(d.substep_count);
  w->Put(d.contact_hertz);
  w->Put(d.contact_damping_ratio);
  w->Put(d.joint_hertz);
  w->Put(d.joint_damping_ratio);
  w->Put(d.contact_push_max_velocity);
  w->Put(d.restitution_threshold);
  w->Put(d.hit_event_threshold);
  w->Put(d.time_to_sleep);
  w->Put(d.maximum_linear_speed);
  w->PutBool(d.enable_sleep);
  w->PutBool(d.enable_continuous);
  w->Put(d.world_id);
}

// The body: every record slot that is alive, in index order.
void PutBody(BufferWriter* w, const WorldState& s) {
  w->BeginRecord(Key(kHeaderRecord));
  PutWorldDef(w, s.def);
  w->Put(s.step_count);
  w->Put(s.last_time_step);
  w->EndRecord();
  w->BeginRecord(Key(kBodyPool));
  PutPool(w, s.body_ids);
  w->EndRecord();
  // A body's shape and contact lists live on the heap, each a likely cache
  // miss in a world not stepped lately (a server's tick thread goes round
  // many): ask for them a few bodies ahead.
  //
  // The records below are written by PutRecord without a check per field.
  // Their bounds: every field a record holds is a member of its struct,
  // written at its own size or smaller (a bool as one byte), except that a
  // vector member is written as a u32 count and its elements.
  constexpr int32_t kAhead = 4;
  const int32_t body_capacity = s.body_ids.Capacity();
  for (int32_t i = 0; i < body_capacity; ++i) {
    if (i + kAhead < body_capacity) {
      __builtin_prefetch(s.bodies[i + kAhead].shapes.data());
      __builtin_prefetch(s.bodies[i + kAhead].contacts.data());
    }
    if (!s.body_ids.IsAlive(i)) continue;
    const Body& b = s.bodies[i];
    const size_t bound = sizeof(Body) + ArrayBytes(b.shapes) + ArrayBytes(b.contacts) +
                         ArrayBytes(b.joints);
    w->PutRecord(Key(kBodyRecord, i), bound, [&b](RawWriter raw) { return PutBody(raw, b); });
  }
  w->BeginRecord(Key(kShapePool));
  PutPool(w, s.shape_ids);
  w->EndRecord();
  for (int32_t i = 0; i < s.shape_ids.Capacity(); ++i) {
    if (!s.shape_ids.IsAlive(i)) continue;
    const Shape& shape = s.shapes[i];
    w->PutRecord(Key(kShapeRecord, i), sizeof(Shape),
                 [&shape](RawWriter raw) { return PutShape(raw, shape); });
  }
  w->BeginRecord(Key(kContactPool));
  PutPool(w, s.contact_ids);
  w->EndRecord();
  // The live ones only: a pile created inside itself leaves a pool many
  // times its contacts (id_pool.h).
  s.contact_ids.ForEachAlive([&s, w](int32_t i) {
    const Contact& c = s.contacts[i];
    w->PutRecord(Key(kContactRecord, i), sizeof(Contact),
                 [&c](RawWriter raw) { return PutContact(raw, c); });
  });
  w->BeginRecord(Key(kJointPool));
  PutPool(w, s.joint_ids);
  w->EndRecord();
  for (int32_t i = 0; i < s.joint_ids.Capacity(); ++i) {
    if (!s.joint_ids.IsAlive(i)) continue;
    w->BeginRecord(Key(kJointRecord, i));
    PutJoint(w, s.joints[i]);
    w->EndRecord();
  }
  w->BeginRecord(Key(kIslandPool));
  PutPool(w, s.island_ids);
  w->EndRecord();
  for (int32_t i = 0; i < s.island_ids.Capacity(); ++i) {
    if (!s.island_ids.IsAlive(i)) continue;
    const Island& island = s.islands[i];
    w->PutRecord(Key(kIslandRecord, i), sizeof(Island),
                 [&island](RawWriter raw) { return PutIsland(raw, island); });
  }
  w->BeginRecord(Key(kEventsRecord));
  w->Put<uint32_t>(static_cast<uint32_t>(s.pending_contact_end.size()));
  for (const ContactEndEvent& e : s.pending_contact_end) {
    PutShapeId(w, e.shape_a);
    PutShapeId(w, e.shape_b);
  }
  w->Put<uint32_t>(static_cast<uint32_t>(s.pending_sensor_end.size()));
  for (const SensorEndEvent& e : s.pending_sensor_end) {
    PutShapeId(w, e.sensor);
    PutShapeId(w, e.visitor);
  }
  w->EndRecord();
}

// --- Reading ----------------------------------------------------------------

bool GetPool(ByteReader* r, IdPool* pool) {
  std::vector<uint16_t> generations = r->GetArray<uint16_t>(kMaxRecords);
  std::vector<uint8_t> alive = r->GetArray<uint8_t>(kMaxRecords);
  std::vector<int32_t> free_list = r->GetArray<int32_t>(kMaxRecords);
  if (!r->ok() || alive.size() != generations.size()) return false;
  // Every dead slot is on the free list exactly once, live ones never.
  std::vector<uint8_t> listed(alive.size(), 0);
  for (int32_t f : free_list) {
    if (f < 0 || static_cast<size_t>(f) >= alive.size() || alive[f] != 0 || listed[f]) return false;
    listed[f] = 1;
  }
  for (size_t i = 0; i < alive.size(); ++i) {
    if (alive[i] > 1 || generations[i] == 0 || (alive[i] == 0) != (listed[i] == 1)) return false;
  }
  pool->Restore(std::move(free_list), std::move(generations), std::move(alive));
  return true;
}

Filter GetFilter(ByteReader* r) {
  Filter f;
  f.category_bits = r->Get<uint64_t>();
  f.mask_bits = r->Get<uint64_t>();
  f.group_index = r->Get<int32_t>();
  return f;
}

// Bitwise equality of two geometries (the fields a snapshot stores).
bool SameBits(const void* a, const void* b, size_t n) { return std::memcmp(a, b, n) == 0; }
bool SameGeometry(const ShapeGeometry& a, const ShapeGeometry& b) {
  if (a.type != b.type) return false;
  switch (a.type) {
    case ShapeType::kCircle:
      return SameBits(&a.circle.center, &b.circle.center, sizeof(Vec2)) &&
             SameBits(&a.circle.radius, &b.circle.radius, sizeof(float));
    case ShapeType::kCapsule:
      return SameBits(&a.capsule.center1, &b.capsule.center1, sizeof(Vec2)) &&
             SameBits(&a.capsule.center2, &b.capsule.center2, sizeof(Vec2)) &&
             SameBits(&a.capsule.radius, &b.capsule.radius, sizeof(float));
    case ShapeType::kSegment:
      return SameBits(&a.segment.point1, &b.segment.point1, sizeof(Vec2)) &&
             SameBits(&a.segment.point2, &b.segment.point2, sizeof(Vec2));
    case ShapeType::kChainSegment:
      return SameBits(&a.chain_segment.ghost1, &b.chain_segment.ghost1, sizeof(Vec2)) &&
             SameBits(&a.chain_segment.segment.point1, &b.chain_segment.segment.point1,
                      sizeof(Vec2)) &&
             SameBits(&a.chain_segment.segment.point2, &b.chain_segment.segment.point2,
                      sizeof(Vec2)) &&
             SameBits(&a.chain_segment.ghost2, &b.chain_segment.ghost2, sizeof(Vec2));
    case ShapeType::kPolygon: {
      const Polygon& p = a.polygon;
      const Polygon& q = b.polygon;
      const size_t n = static_cast<size_t>(p.count) * sizeof(Vec2);
      return p.count == q.count && SameBits(p.vertices, q.vertices, n) &&
             SameBits(p.normals, q.normals, n) &&
             SameBits(&p.centroid, &q.centroid, sizeof(Vec2)) &&
             SameBits(&p.radius, &q.radius, sizeof(float));
    }
  }
  return false;
}

// Reads a shape's geometry and validates it, unless `known` (a geometry of
// the world being restored into, valid since every shape in a world is) has
// the same bits: a rollback restores the shapes it already has, and
// validating polygons was a third of the restore.
bool GetGeometry(ByteReader* r, ShapeGeometry* g, const ShapeGeometry* known) {
  const uint8_t type = r->Get<uint8_t>();
  switch (type) {
    case static_cast<uint8_t>(ShapeType::kCircle): {
      Circle c;
      c.center = r->GetVec();
      c.radius = r->Get<float>();
      *g = ShapeGeometry(c);
      break;
    }
    case static_cast<uint8_t>(ShapeType::kCapsule): {
      Capsule c;
      c.center1 = r->GetVec();
      c.center2 = r->GetVec();
      c.radius = r->Get<float>();
      *g = ShapeGeometry(c);
      break;
    }
    case static_cast<uint8_t>(ShapeType::kSegment): {
      Segment s;
      s.point1 = r->GetVec();
      s.point2 = r->GetVec();
      *g = ShapeGeometry(s);
      break;
    }
    case static_cast<uint8_t>(ShapeType::kChainSegment): {
      ChainSegment c;
      c.ghost1 = r->GetVec();
      c.segment.point1 = r->GetVec();
      c.segment.point2 = r->GetVec();
      c.ghost2 = r->GetVec();
      *g = ShapeGeometry(c);
      break;
    }
    case static_cast<uint8_t>(ShapeType::kPolygon): {
      Polygon p;
      p.count = r->Get<int32_t>();
      if (p.count < 3 || p.count > kMaxPolygonVertices) return false;
      for (int32_t i = 0; i < p.count; ++i) {
        p.vertices[i] = r->GetVec();
        p.normals[i] = r->GetVec();
      }
      p.centroid = r->GetVec();
      p.radius = r->Get<float>();
      *g = ShapeGeometry(p);
      break;
    }
    default:
      return false;
  }
  if (!r->ok()) return false;
  return (known != nullptr && SameGeometry(*g, *known)) || ValidateShape(*g).ok();
}

bool Finite(Vec2 v) { return IsFinite(v.x) && IsFinite(v.y); }

class Parser {
 public:
  /// Parses into `s`; `previous` is the state being replaced (its valid
  /// shapes spare re-validating identical ones), or null.
  Parser(std::span<const uint8_t> body, WorldState* s, const WorldState* previous)
      : seq_(body), r_({}), s_(s), previous_(previous) {}

  absl::Status Parse() {
    if (!Enter(Key(kHeaderRecord)) || !ParseDef()) return Error("world settings");
    s_->step_count = r_.Get<int64_t>();
    s_->last_time_step = r_.Get<float>();
    if (!Leave() || s_->step_count < 0) return Error("step counter");

    if (!Enter(Key(kBodyPool)) || !GetPool(&r_, &s_->body_ids) || !Leave()) {
      return Error("body id pool");
    }
    s_->bodies.assign(s_->body_ids.Capacity(), Body());
    for (int32_t i = 0; i < s_->body_ids.Capacity(); ++i) {
      if (s_->body_ids.IsAlive(i) &&
          (!Enter(Key(kBodyRecord, i)) || !ParseBody(&s_->bodies[i]) || !Leave())) {
        return Error(absl::StrCat("body ", i));
      }
    }
    if (!Enter(Key(kShapePool)) || !GetPool(&r_, &s_->shape_ids) || !Leave()) {
      return Error("shape id pool");
    }
    s_->shapes.assign(s_->shape_ids.Capacity(), Shape());
    for (int32_t i = 0; i < s_->shape_ids.Capacity(); ++i) {
      if (s_->shape_ids.IsAlive(i) &&
          (!Enter(Key(kShapeRecord, i)) || !ParseShape(&s_->shapes[i], KnownGeometry(i)) ||
           !Leave())) {
        return Error(absl::StrCat("shape ", i));
      }
    }
    if (!Enter(Key(kContactPool)) || !GetPool(&r_, &s_->contact_ids) || !Leave()) {
      return Error("contact id pool");
    }
    s_->contacts.assign(s_->contact_ids.Capacity(), Contact());
    for (int32_t i = 0; i < s_->contact_ids.Capacity(); ++i) {
      if (s_->contact_ids.IsAlive(i) &&
          (!Enter(Key(kContactRecord, i)) || !ParseContact(&s_->contacts[i]) || !Leave())) {
        return Error(absl::StrCat("contact ", i));
      }
    }
    if (!Enter(Key(kJointPool)) || !GetPool(&r_, &s_->joint_ids) || !Leave()) {
      return Error("joint id pool");
    }
    s_->joints.assign(s_->joint_ids.Capacity(), Joint());
    for (int32_t i = 0; i < s_->joint_ids.Capacity(); ++i) {
      if (s_->joint_ids.IsAlive(i) &&
          (!Enter(Key(kJointRecord, i)) || !ParseJoint(&s_->joints[i]) || !Leave())) {
        return Error(absl::StrCat("joint ", i));
      }
    }
    if (!Enter(Key(kIslandPool)) || !GetPool(&r_, &s_->island_ids) || !Leave()) {
      return Error("island id pool");
    }
    s_->islands.assign(s_->island_ids.Capacity(), Island());
    for (int32_t i = 0; i < s_->island_ids.Capacity(); ++i) {
      if (s_->island_ids.IsAlive(i) &&
          (!Enter(Key(kIslandRecord, i)) || !ParseIsland(&s_->islands[i]) || !Leave())) {
        return Error(absl::StrCat("island ", i));
      }
    }
    if (!Enter(Key(kEventsRecord)) || !ParseEvents() || !Leave()) return Error("pending events");
    if (!seq_.AtEnd()) return Error("trailing bytes");
    if (std::string problem = CheckReferences(); !problem.empty()) return Error(problem);
    return absl::OkStatus();
  }

 private:
  absl::Status Error(const std::string& where) {
    return absl::InvalidArgumentError(absl::StrCat("snapshot: bad or truncated ", where));
  }

  bool ParseDef() {
    WorldDef& d = s_->def;
    d.gravity = r_.GetVec();
    d.substep_count = r_.Get<int32_t>();
    d.contact_hertz = r_.Get<float>();
    d.contact_damping_ratio = r_.Get<float>();
    d.joint_hertz = r_.Get<float>();
    d.joint_damping_ratio = r_.Get<float>();
    d.contact_push_max_velocity = r_.Get<float>();
    d.restitution_threshold = r_.Get<float>();
    d.hit_event_threshold = r_.Get<float>();
    d.time_to_sleep = r_.Get<float>();
    d.maximum_linear_speed = r_.Get<float>();
    d.enable_sleep = r_.GetBool();
    d.enable_continuous = r_.GetBool();
    d.world_id = r_.Get<uint16_t>();
    return r_.ok() && ValidateWorldDef(d).ok();
  }

  bool ParseBody(Body* b) {
    const uint8_t type = r_.Get<uint8_t>();
    if (type > static_cast<uint8_t>(BodyType::kDynamic)) return false;
    b->type = static_cast<BodyType>(type);
    b->awake = r_.GetBool();
    b->enabled = r_.GetBool();
    b->is_bullet = r_.GetBool();
    b->fixed_rotation = r_.GetBool();
    b->allow_sleep = r_.GetBool();
    b->transform.p = r_.GetVec();
    b->transform.q = r_.GetRot();
    b->center = r_.GetVec();
    b->local_center = r_.GetVec();
    b->center0 = r_.GetVec();
    b->rotation0 = r_.GetRot();
    b->linear_velocity = r_.GetVec();
    b->angular_velocity = r_.Get<float>();
    b->force = r_.GetVec();
    b->torque = r_.Get<float>();
    b->mass = r_.Get<float>();
    b->inv_mass = r_.Get<float>();
    b->inertia = r_.Get<float>();
    b->inv_inertia = r_.Get<float>();
    b->max_extent = r_.Get<float>();
    b->min_extent = r_.Get<float>();
    b->linear_damping = r_.Get<float>();
    b->angular_damping = r_.Get<float>();
    b->gravity_scale = r_.Get<float>();
    b->sleep_threshold = r_.Get<float>();
    b->sleep_time = r_.Get<float>();
    b->shapes = r_.GetArray<int32_t>(kMaxRecords);
    b->contacts = r_.GetArray<int32_t>(kMaxRecords);
    b->joints = r_.GetArray<int32_t>(kMaxRecords);
    b->island = r_.Get<int32_t>();
    b->island_prev = r_.Get<int32_t>();
    b->island_next = r_.Get<int32_t>();
    b->user_data = r_.Get<uint64_t>();
    if (!r_.ok()) return false;
    return Finite(b->transform.p) && IsValid(b->transform.q) && Finite(b->center) &&
           Finite(b->local_center) && Finite(b->center0) && IsValid(b->rotation0) &&
           Finite(b->linear_velocity) && IsFinite(b->angular_velocity) && Finite(b->force) &&
           IsFinite(b->torque) && IsFinite(b->mass) && IsFinite(b->inv_mass) &&
           IsFinite(b->inertia) && IsFinite(b->inv_inertia) && IsFinite(b->max_extent) && IsFinite(b->min_extent) &&
           IsFinite(b->linear_damping) && IsFinite(b->angular_damping) &&
           IsFinite(b->gravity_scale) && IsFinite(b->sleep_threshold) && IsFinite(b->sleep_time);
  }

  const ShapeGeometry* KnownGeometry(int32_t i) const {
    if (previous_ == nullptr || !previous_->shape_ids.IsAlive(i)) return nullptr;
    return &previous_->shapes[i].geometry;
  }

  bool ParseShape(Shape* s, const ShapeGeometry* known) {
    s->body = r_.Get<int32_t>();
    if (!GetGeometry(&r_, &s->geometry, known)) return false;
    s->density = r_.Get<float>();
    s->friction = r_.Get<float>();
    s->restitution = r_.Get<float>();
    s->filter = GetFilter(&r_);
    s->is_sensor = r_.GetBool();
    s->enable_sensor_events = r_.GetBool();
    s->enable_contact_events = r_.GetBool();
    s->enable_hit_events = r_.GetBool();
    s->has_proxy = r_.GetBool();
    s->aabb.lower = r_.GetVec();
    s->aabb.upper = r_.GetVec();
    s->user_data = r_.Get<uint64_t>();
    return r_.ok() && IsFinite(s->density) && IsFinite(s->friction) &&
           IsFinite(s->restitution) && IsValid(s->aabb);
  }

  bool ParseContact(Contact* c) {
    c->shape_a = r_.Get<int32_t>();
    c->shape_b = r_.Get<int32_t>();
    c->body_a = r_.Get<int32_t>();
    c->body_b = r_.Get<int32_t>();
    c->flags = r_.Get<uint32_t>();
    c->friction = r_.Get<float>();
    c->restitution = r_.Get<float>();
    c->island = r_.Get<int32_t>();
    c->island_prev = r_.Get<int32_t>();
    c->island_next = r_.Get<int32_t>();
    Manifold& m = c->manifold;
    m.normal = r_.GetVec();
    m.point_count = r_.Get<int32_t>();
    if (m.point_count < 0 || m.point_count > 2) return false;
    for (int32_t i = 0; i < m.point_count; ++i) {
      ManifoldPoint& p = m.points[i];
      p.point = r_.GetVec();
      p.anchor_a = r_.GetVec();
      p.anchor_b = r_.GetVec();
      p.separation = r_.Get<float>();
      p.normal_impulse = r_.Get<float>();
      p.tangent_impulse = r_.Get<float>();
      p.id = r_.Get<uint32_t>();
      if (!Finite(p.point) || !IsFinite(p.separation) || !IsFinite(p.normal_impulse) ||
          !IsFinite(p.tangent_impulse)) {
        return false;
      }
    }
    bool base_finite = true;
    if ((c->flags & kContactRecycle) != 0) {
      ManifoldBase& base = c->base;
      for (Transform* xf : {&base.transform_a, &base.transform_b}) {
        xf->p = r_.GetVec();
        xf->q.c = r_.Get<float>();
        xf->q.s = r_.Get<float>();
        base_finite = base_finite && Finite(xf->p) && IsValid(xf->q);
      }
      for (int32_t i = 0; i < m.point_count; ++i) {
        base.anchor_a[i] = r_.GetVec();
        base.anchor_b[i] = r_.GetVec();
        base.separation[i] = r_.Get<float>();
        base_finite = base_finite && Finite(base.anchor_a[i]) && Finite(base.anchor_b[i]) &&
                      IsFinite(base.separation[i]);
      }
    }
    // Between steps every live contact carries kContactPersisted
    // (contact_manager.cc relies on it).
    return r_.ok() && base_finite && Finite(m.normal) && IsFinite(c->friction) && IsFinite(c->restitution) &&
           (c->flags & kContactPersisted) != 0;
  }

  struct FieldReader {
    ByteReader* r;
    bool* finite;
    void operator()(float& v) const {
      v = r->Get<float>();
      if (!IsFinite(v)) *finite = false;
    }
    void operator()(bool& v) const { v = r->GetBool(); }
    void operator()(Vec2& v) const {
      v = r->GetVec();
      if (!Finite(v)) *finite = false;
    }
  };

  bool ParseJoint(Joint* j) {
    const uint8_t type = r_.Get<uint8_t>();
    if (type > static_cast<uint8_t>(JointType::kTarget)) return false;
    j->type = static_cast<JointType>(type);
    j->body_a = r_.Get<int32_t>();
    j->body_b = r_.Get<int32_t>();
    j->local_anchor_a = r_.GetVec();
    j->local_anchor_b = r_.GetVec();
    j->collide_connected = r_.GetBool();
    j->user_data = r_.Get<uint64_t>();
    j->break_force = r_.Get<float>();
    j->break_torque = r_.Get<float>();
    j->island = r_.Get<int32_t>();
    j->island_prev = r_.Get<int32_t>();
    j->island_next = r_.Get<int32_t>();
    j->data = MakeJointData(j->type);
    bool finite = true;
    VisitJointDataFields(j->data, FieldReader{&r_, &finite});
    // Break thresholds: >= 0, infinity for never (a NaN fails both tests).
    const bool thresholds = j->break_force >= 0.0f && j->break_torque >= 0.0f;
    return r_.ok() && finite && thresholds && Finite(j->local_anchor_a) &&
           Finite(j->local_anchor_b);
  }

  bool ParseIsland(Island* i) {
    i->parent = r_.Get<int32_t>();
    i->head_body = r_.Get<int32_t>();
    i->tail_body = r_.Get<int32_t>();
    i->body_count = r_.Get<int32_t>();
    i->head_contact = r_.Get<int32_t>();
    i->tail_contact = r_.Get<int32_t>();
    i->contact_count = r_.Get<int32_t>();
    i->head_joint = r_.Get<int32_t>();
    i->tail_joint = r_.Get<int32_t>();
    i->joint_count = r_.Get<int32_t>();
    i->constraint_remove_count = r_.Get<int32_t>();
    i->awake = r_.GetBool();
    return r_.ok();
  }

  ShapeId GetShapeId() {
    ShapeId id;
    id.index = r_.Get<uint32_t>();
    id.world = r_.Get<uint16_t>();
    id.generation = r_.Get<uint16_t>();
    return id;
  }

  bool ParseEvents() {
    const uint32_t contact_ends = r_.Get<uint32_t>();
    if (contact_ends > kMaxRecords) return false;
    for (uint32_t i = 0; i < contact_ends && r_.ok(); ++i) {
      const ShapeId a = GetShapeId();
      s_->pending_contact_end.push_back({a, GetShapeId()});
    }
    const uint32_t sensor_ends = r_.Get<uint32_t>();
    if (sensor_ends > kMaxRecords) return false;
    for (uint32_t i = 0; i < sensor_ends && r_.ok(); ++i) {
      const ShapeId a = GetShapeId();
      s_->pending_sensor_end.push_back({a, GetShapeId()});
    }
    return r_.ok();
  }

  // Every index that a later step follows must name a live record that
  // points back; a blob that passes is safe to step.
  std::string CheckReferences() const {
    const WorldState& s = *s_;
    auto body_ok = [&](int32_t b) { return s.body_ids.IsAlive(b); };
    auto shape_ok = [&](int32_t x) { return s.shape_ids.IsAlive(x); };
    auto contact_ok = [&](int32_t c) { return s.contact_ids.IsAlive(c); };
    auto joint_ok = [&](int32_t j) { return s.joint_ids.IsAlive(j); };
    auto island_ok = [&](int32_t i) { return s.island_ids.IsAlive(i); };
    auto opt = [](int32_t v, auto ok) { return v == kNullIndex || ok(v); };
    // Joint list entries must point back, and each joint end must be listed
    // exactly once.
    std::vector<uint8_t> listed_a(s.joints.size(), 0), listed_b(s.joints.size(), 0);
    for (int32_t b = 0; b < s.body_ids.Capacity(); ++b) {
      if (!body_ok(b)) continue;
      const Body& body = s.bodies[b];
      for (int32_t x : body.shapes) {
        if (!shape_ok(x) || s.shapes[x].body != b) return absl::StrCat("body ", b, " shape list");
      }
      for (int32_t c : body.contacts) {
        if (!contact_ok(c) || (s.contacts[c].body_a != b && s.contacts[c].body_b != b)) {
          return absl::StrCat("body ", b, " contact list");
        }
      }
      for (int32_t j : body.joints) {
        if (!joint_ok(j) || (s.joints[j].body_a != b && s.joints[j].body_b != b)) {
          return absl::StrCat("body ", b, " joint list");
        }
        uint8_t& seen = s.joints[j].body_a == b ? listed_a[j] : listed_b[j];
        if (seen++ != 0) return absl::StrCat("body ", b, " joint list");
      }
      if (!opt(body.island, island_ok) || !opt(body.island_prev, body_ok) ||
          !opt(body.island_next, body_ok)) {
        return absl::StrCat("body ", b, " island links");
      }
      if ((body.island != kNullIndex) != (body.type == BodyType::kDynamic && body.enabled)) {
        return absl::StrCat("body ", b, " island membership");
      }
    }
    for (int32_t x = 0; x < s.shape_ids.Capacity(); ++x) {
      if (shape_ok(x) && !body_ok(s.shapes[x].body)) return absl::StrCat("shape ", x, " body");
    }
    for (int32_t c = 0; c < s.contact_ids.Capacity(); ++c) {
      if (!contact_ok(c)) continue;
      const Contact& k = s.contacts[c];
      if (!shape_ok(k.shape_a) || !shape_ok(k.shape_b) || k.shape_a >= k.shape_b ||
          s.shapes[k.shape_a].body != k.body_a || s.shapes[k.shape_b].body != k.body_b ||
          !opt(k.island, island_ok) || !opt(k.island_prev, contact_ok) ||
          !opt(k.island_next, contact_ok)) {
        return absl::StrCat("contact ", c, " references");
      }
    }
    for (int32_t j = 0; j < s.joint_ids.Capacity(); ++j) {
      if (!joint_ok(j)) continue;
      const Joint& k = s.joints[j];
      const bool is_target = k.type == JointType::kTarget;
      if (!body_ok(k.body_b) || (is_target ? k.body_a != kNullIndex : !body_ok(k.body_a)) ||
          k.body_a == k.body_b || !opt(k.island, island_ok) || !opt(k.island_prev, joint_ok) ||
          !opt(k.island_next, joint_ok)) {
        return absl::StrCat("joint ", j, " references");
      }
      if (listed_b[j] != 1 || listed_a[j] != (is_target ? 0 : 1)) {
        return absl::StrCat("joint ", j, " is not listed by its bodies");
      }
    }
    for (int32_t i = 0; i < s.island_ids.Capacity(); ++i) {
      if (!island_ok(i)) continue;
      const Island& is = s.islands[i];
      if (is.parent != kNullIndex || !opt(is.head_body, body_ok) || !opt(is.tail_body, body_ok) ||
          !opt(is.head_contact, contact_ok) || !opt(is.tail_contact, contact_ok) ||
          !opt(is.head_joint, joint_ok) || !opt(is.tail_joint, joint_ok)) {
        return absl::StrCat("island ", i, " links");
      }
    }
    // The island lists must be exactly what the records say (no cycles, no
    // strays); ValidateIslands walks them with counts as a bound.
    if (std::string problem = ValidateIslandLinks(s); !problem.empty()) return problem;
    return "";
  }

  static std::string ValidateIslandLinks(const WorldState& s) {
    for (int32_t i = 0; i < s.island_ids.Capacity(); ++i) {
      if (!s.island_ids.IsAlive(i)) continue;
      const Island& is = s.islands[i];
      int32_t n = 0, prev = kNullIndex;
      for (int32_t b = is.head_body; b != kNullIndex; b = s.bodies[b].island_next) {
        if (++n > is.body_count || s.bodies[b].island != i || s.bodies[b].island_prev != prev) {
          return absl::StrCat("island ", i, " body list");
        }
        prev = b;
      }
      if (n != is.body_count || prev != is.tail_body) return absl::StrCat("island ", i, " body count");
      n = 0;
      prev = kNullIndex;
      for (int32_t c = is.head_contact; c != kNullIndex; c = s.contacts[c].island_next) {
        if (++n > is.contact_count || s.contacts[c].island != i ||
            s.contacts[c].island_prev != prev) {
          return absl::StrCat("island ", i, " contact list");
        }
        prev = c;
      }
      if (n != is.contact_count || prev != is.tail_contact) {
        return absl::StrCat("island ", i, " contact count");
      }
      n = 0;
      prev = kNullIndex;
      for (int32_t j = is.head_joint; j != kNullIndex; j = s.joints[j].island_next) {
        if (++n > is.joint_count || s.joints[j].island != i || s.joints[j].island_prev != prev) {
          return absl::StrCat("island ", i, " joint list");
        }
        prev = j;
      }
      if (n != is.joint_count || prev != is.tail_joint) {
        return absl::StrCat("island ", i, " joint count");
      }
    }
    return "";
  }

  // Opens the next record, which must have `key`; r_ then reads inside it.
  bool Enter(uint32_t key) {
    const uint32_t found = seq_.Get<uint32_t>();
    const uint32_t length = seq_.Get<uint32_t>();
    const std::span<const uint8_t> bytes = seq_.GetBytes(length);
    if (!seq_.ok() || found != key) return false;
    r_ = ByteReader(bytes);
    return true;
  }
  // The record was read completely and correctly.
  bool Leave() const { return r_.ok() && r_.AtEnd(); }

  ByteReader seq_;
  ByteReader r_;
  WorldState* s_;
  const WorldState* previous_;
};

// Rebuilds the broad phase from the shapes (proxy id = shape index). Its
// internal structure never affects results: pairs and queries come out in
// one canonical order whatever the tree looks like.
void RebuildBroadPhase(WorldState* s) {
  s->broad_phase = MakeBroadPhase(s->def.broad_phase);
  for (int32_t i = 0; i < s->shape_ids.Capacity(); ++i) {
    if (!s->shape_ids.IsAlive(i) || !s->shapes[i].has_proxy) continue;
    const Shape& shape = s->shapes[i];
    ProxyData data;
    data.body_id = static_cast<uint32_t>(shape.body);
    data.is_static = ProxyIsStatic(s->bodies[shape.body]);
    data.filter = shape.filter;
    s->broad_phase->CreateProxyWithId(i, shape.aabb, data);
  }
}

// Roughly the snapshot's size, so the writer grows its buffer once at most.
size_t SizeHint(const WorldState& s) {
  auto slots = [](const IdPool& pool) { return static_cast<size_t>(pool.Capacity()); };
  return 256 + slots(s.body_ids) * 192 + slots(s.shape_ids) * 128 + slots(s.contact_ids) * 160 +
         slots(s.joint_ids) * 192 + slots(s.island_ids) * 64;
}

}  // namespace

void SaveSnapshot(const World& world, std::string* out) {
  const WorldState& s = world.state();
  BufferWriter w(out, SizeHint(s));
  for (char c : kSnapshotMagic) w.Put(c);
  w.Put(kSnapshotVersion);
  w.Put<uint32_t>(0);  // body length, patched below
  PutBody(&w, s);
  const uint32_t body_size = static_cast<uint32_t>(w.size() - kHeaderSize);
  std::memcpy(w.data() + 12, &body_size, sizeof(body_size));
  w.Put<uint64_t>(Xxh3(w.data() + kHeaderSize, body_size));
  w.Finish();
}

std::string SaveSnapshot(const World& world) {
  std::string out;
  SaveSnapshot(world, &out);
  return out;
}

absl::Status RestoreSnapshot(std::span<const uint8_t> bytes, World* world) {
  if (bytes.size() < kHeaderSize + kTrailerSize) {
    return absl::InvalidArgumentError(
        absl::StrCat("snapshot: truncated (", bytes.size(), " bytes)"));
  }
  if (std::memcmp(bytes.data(), kSnapshotMagic, sizeof(kSnapshotMagic)) != 0) {
    return absl::InvalidArgumentError("snapshot: not an Atoll snapshot (bad magic)");
  }
  uint32_t version = 0, body_size = 0;
  std::memcpy(&version, bytes.data() + 8, 4);
  std::memcpy(&body_size, bytes.data() + 12, 4);
  if (version != kSnapshotVersion) {
    return absl::InvalidArgumentError(absl::StrCat("snapshot: version ", version,
                                                   ", this build reads ", kSnapshotVersion));
  }
  if (bytes.size() != kHeaderSize + static_cast<size_t>(body_size) + kTrailerSize) {
    return absl::InvalidArgumentError(absl::StrCat("snapshot: truncated or padded (", bytes.size(),
                                                   " bytes, header says ", body_size,
                                                   "-byte body)"));
  }
  const std::span<const uint8_t> body = bytes.subspan(kHeaderSize, body_size);
  uint64_t checksum = 0;
  std::memcpy(&checksum, bytes.data() + kHeaderSize + body_size, 8);
  if (checksum != Xxh3(body.data(), body.size())) {
    return absl::DataLossError("snapshot: checksum mismatch (corrupted)");
  }
  auto state = std::make_unique<WorldState>();
  // The strategy is the restoring world's own choice: it never changes
  // results, so it is not part of the state (nor of the hash).
  state->def.broad_phase = world->def().broad_phase;
  Parser parser(body, state.get(), &world->state());
  if (absl::Status s = parser.Parse(); !s.ok()) return s;
  for (int32_t i = 0; i < state->body_ids.Capacity(); ++i) {
    if (!state->body_ids.IsAlive(i)) continue;
    Body& b = state->bodies[i];
    b.core_extent = ComputeBodyCoreExtent(*state, b);
  }
  RebuildBroadPhase(state.get());
  // Keep the old scratch memory: restoring every few ticks (rollback)
  // should not reallocate the solver arrays.
  state->scratch.swap(world->state().scratch);
  state->executor = world->state().executor;
  world->state() = std::move(*state);
  return absl::OkStatus();
}

absl::Status RestoreSnapshot(const std::string& bytes, World* world) {
  return RestoreSnapshot(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()),
      world);
}

absl::StatusOr<std::unique_ptr<World>> LoadSnapshot(std::span<const uint8_t> bytes,
                                                    BroadPhaseType broad_phase) {
  WorldDef def;
  def.broad_phase = broad_phase;
  absl::StatusOr<std::unique_ptr<World>> world = World::Create(def);
  if (!world.ok()) return world.status();
  if (absl::Status s = RestoreSnapshot(bytes, world->get()); !s.ok()) return s;
  return world;
}

absl::StatusOr<std::unique_ptr<World>> LoadSnapshot(const std::string& bytes,
                                                    BroadPhaseType broad_phase) {
  return LoadSnapshot(
      std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()),
      broad_phase);
}

uint64_t HashWorld(const World& world, std::string* scratch) {
  // The body's bytes as SaveSnapshot writes them, hashed a chunk at a time
  // as they are written: a world's snapshot is hundreds of kilobytes (a
  // 500-body heap 370 KB), and writing it whole to hash it afterwards sent
  // every byte out of the cache and back, at each tick of every world a
  // server hosts. XXH3 fed in pieces equals XXH3 of the whole.
  XXH3_state_t* const state = XXH3_createState();
  if (state == nullptr) std::abort();
  XXH3_64bits_reset(state);
  {
    BufferWriter w(scratch, kHashChunk + 4096);
    w.HashInto(state, kHashChunk);
    PutBody(&w, world.state());
    w.FlushHash();
  }
  const uint64_t hash = XXH3_64bits_digest(state);
  XXH3_freeState(state);
  return hash;
}

uint64_t HashWorld(const World& world) {
  std::string scratch;
  return HashWorld(world, &scratch);
}

}  // namespace atl
