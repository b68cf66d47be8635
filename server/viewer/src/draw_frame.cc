#include "atoll/viewer/draw_frame.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <span>
#include <string_view>
#include <vector>

#include "absl/strings/str_format.h"
#include "atoll/body.h"
#include "atoll/debug_draw.h"
#include "atoll/world.h"
#include "json_writer.h"

namespace atl::viewer {
namespace {

uint32_t PackedRgba(Color c) {
  auto channel = [](float v) {
    return static_cast<uint32_t>(std::clamp(v, 0.0f, 1.0f) * 255.0f + 0.5f);
  };
  return channel(c.r) << 24 | channel(c.g) << 16 | channel(c.b) << 8 | channel(c.a);
}

std::string Hex(uint32_t rgba) { return absl::StrFormat("#%08x", rgba); }
std::string Rgba(Color c) { return Hex(PackedRgba(c)); }

// One layer of primitives as arrays led by a kind letter. The common ones
// are batched by colour into SVG path data, so the page parses one path per
// colour instead of building thousands of paths in JavaScript (a 5 000-box
// frame: 2 ms of script instead of 7):
//   ["P", fill, stroke, path, marks]    sharp polygons and circles: `path`
//                                       filled and outlined, `marks` (the
//                                       circles' rotation marks) outlined
//   ["S", color, path]                  segments, outlined
//   ["D", color, size_px, path]         points: each a tiny segment the page
//                                       strokes size_px wide, square caps
// and one by one, after the batches:
//   ["p", fill, stroke, radius, x0, y0, x1, y1, ...]  rounded polygon
//   ["k", fill, stroke, x1, y1, x2, y2, r]            capsule
//   ["t", color, x, y, text]                          text
// Batches keep the order in which their first primitive came.
class JsonLayerDraw final : public DebugDraw {
 public:
  JsonLayerDraw(JsonWriter* out, size_t max_primitives)
      : out_(out), max_(max_primitives) {}

  void DrawPolygon(std::span<const Vec2> vertices, float radius, Color fill,
                   Color outline) override {
    if (!Count() || !Finite(vertices)) return;
    if (radius > 0.0f) {
      out_->BeginArray();
      out_->String("p");
      out_->String(Rgba(fill));
      out_->String(Rgba(outline));
      out_->Number(radius, 4);
      for (Vec2 v : vertices) Point(v);
      out_->EndArray();
      return;
    }
    std::string& path = BatchOf('P', fill, outline, 0.0f).path;
    for (size_t i = 0; i < vertices.size(); ++i) {
      path.push_back(i == 0 ? 'M' : ' ');
      Append(vertices[i], &path);
    }
    path.push_back('Z');
  }
  void DrawCircle(Vec2 center, float radius, Vec2 axis, Color fill, Color outline) override {
    if (!Count() || !Finite(std::span<const Vec2>(&center, 1)) || !std::isfinite(radius)) return;
    Batch& batch = BatchOf('P', fill, outline, 0.0f);
    const Vec2 right{center.x + radius, center.y};
    const Vec2 left{center.x - radius, center.y};
    std::string arc = "A";
    AppendNumber(radius, 4, &arc);
    arc.push_back(' ');
    AppendNumber(radius, 4, &arc);
    arc.append(" 0 1 0 ");
    batch.path.push_back('M');
    Append(right, &batch.path);
    batch.path.append(arc);
    Append(left, &batch.path);
    batch.path.append(arc);
    Append(right, &batch.path);
    batch.path.push_back('Z');
    batch.marks.push_back('M');
    Append(center, &batch.marks);
    batch.marks.push_back('L');
    Append({center.x + radius * axis.x, center.y + radius * axis.y}, &batch.marks);
  }
  void DrawCapsule(Vec2 p1, Vec2 p2, float radius, Color fill, Color outline) override {
    if (!Count()) return;
    out_->BeginArray();
    out_->String("k");
    out_->String(Rgba(fill));
    out_->String(Rgba(outline));
    Point(p1);
    Point(p2);
    out_->Number(radius, 4);
    out_->EndArray();
  }
  void DrawSegment(Vec2 p1, Vec2 p2, Color color) override {
    const Vec2 ends[2] = {p1, p2};
    if (!Count() || !Finite(ends)) return;
    std::string& path = BatchOf('S', color, color, 0.0f).path;
    path.push_back('M');
    Append(p1, &path);
    path.push_back('L');
    Append(p2, &path);
  }
  void DrawPoint(Vec2 p, float size, Color color) override {
    if (!Count() || !Finite(std::span<const Vec2>(&p, 1))) return;
    std::string& path = BatchOf('D', color, color, size).path;
    path.push_back('M');
    Append(p, &path);
    path.append("h.0001");
  }
  void DrawString(Vec2 p, std::string_view text, Color color) override {
    if (!Count()) return;
    out_->BeginArray();
    out_->String("t");
    out_->String(Rgba(color));
    Point(p);
    out_->String(text);
    out_->EndArray();
  }

  // Writes the batches (after the one-by-one primitives, which the page
  // draws last anyway).
  void Finish() {
    for (const Batch& b : batches_) {
      out_->BeginArray();
      out_->String(std::string_view(&b.kind, 1));
      out_->String(Hex(b.first));
      if (b.kind == 'P') out_->String(Hex(b.second));
      if (b.kind == 'D') out_->Number(b.size, 1);
      out_->String(b.path);
      if (b.kind == 'P') out_->String(b.marks);
      out_->EndArray();
    }
  }

  bool truncated() const { return truncated_; }

 private:
  struct Batch {
    char kind;
    uint32_t first, second;  // colours, PackedRgba
    float size;
    std::string path, marks;
  };

  bool Count() {
    if (count_ >= max_) {
      truncated_ = true;
      return false;
    }
    ++count_;
    return true;
  }
  static bool Finite(std::span<const Vec2> points) {
    for (Vec2 p : points) {
      if (!std::isfinite(p.x) || !std::isfinite(p.y)) return false;
    }
    return true;
  }
  Batch& BatchOf(char kind, Color first, Color second, float size) {
    const uint32_t a = PackedRgba(first), b = PackedRgba(second);
    for (Batch& batch : batches_) {
      if (batch.kind == kind && batch.first == a && batch.second == b &&
          batch.size == size) {
        return batch;
      }
    }
    return batches_.emplace_back(Batch{kind, a, b, size, {}, {}});
  }
  // Millimetres are finer than any screen shows a world.
  void Point(Vec2 p) {
    out_->Number(p.x, 4);
    out_->Number(p.y, 4);
  }
  static void Append(Vec2 p, std::string* path) {
    AppendNumber(p.x, 4, path);
    path->push_back(' ');
    AppendNumber(p.y, 4, path);
  }

  JsonWriter* const out_;
  const size_t max_;
  size_t count_ = 0;
  bool truncated_ = false;
  std::vector<Batch> batches_;
};

// One Draw pass with only `layer` switched on, as a JSON array.
bool WriteLayer(const World& world, const DebugDrawOptions& layer, size_t max_primitives,
                JsonWriter* out) {
  out->BeginArray();
  JsonLayerDraw draw(out, max_primitives);
  world.Draw(&draw, layer);
  draw.Finish();
  out->EndArray();
  return draw.truncated();
}

DebugDrawOptions Only() {
  DebugDrawOptions o;
  o.shapes = false;
  o.joints = false;
  o.contacts = false;
  o.contact_normals = false;
  o.aabbs = false;
  o.mass_centers = false;
  return o;
}

}  // namespace

std::string DrawFrameJson(const sim::Simulation& sim, const DrawFrameInfo& info,
                          const DrawFrameOptions& options) {
  const World& world = sim.world();
  JsonWriter out;
  out.BeginObject();
  out.Key("world");
  out.String(info.world_id);
  out.Key("tick");
  out.Uint(sim.tick());
  out.Key("hash");
  out.Hex64(sim.hash());
  out.Key("tick_rate");
  out.Uint(info.tick_rate_hz);
  out.Key("step_ms");
  out.Number(info.step_ms, 3);
  out.Key("hash_matches");
  out.Bool(info.hash_matches);
  if (!info.hash_matches) {
    out.Key("expected_hash");
    out.Hex64(info.expected_hash);
  }
  out.Key("note");
  out.String(info.note);
  const AABB bounds = world.GetBounds();
  out.Key("bounds");
  out.BeginArray();
  out.Number(bounds.lower.x, 3);
  out.Number(bounds.lower.y, 3);
  out.Number(bounds.upper.x, 3);
  out.Number(bounds.upper.y, 3);
  out.EndArray();
  const WorldCounters counters = world.GetCounters();
  out.Key("counters");
  out.BeginObject();
  out.Key("bodies");
  out.Int(counters.bodies);
  out.Key("awake_bodies");
  out.Int(counters.awake_bodies);
  out.Key("shapes");
  out.Int(counters.shapes);
  out.Key("contacts");
  out.Int(counters.contacts);
  out.Key("touching_contacts");
  out.Int(counters.touching_contacts);
  out.Key("joints");
  out.Int(counters.joints);
  out.Key("islands");
  out.Int(counters.islands);
  out.Key("awake_islands");
  out.Int(counters.awake_islands);
  out.EndObject();

  bool truncated = false;
  DebugDrawOptions shapes = Only();
  shapes.shapes = true;
  out.Key("shapes");
  truncated |= WriteLayer(world, shapes, options.max_primitives, &out);
  DebugDrawOptions joints = Only();
  joints.joints = true;
  out.Key("joints");
  truncated |= WriteLayer(world, joints, options.max_primitives, &out);
  DebugDrawOptions contacts = Only();
  contacts.contacts = true;
  contacts.contact_normals = true;
  out.Key("contacts");
  truncated |= WriteLayer(world, contacts, options.max_primitives, &out);
  if (options.aabbs) {
    DebugDrawOptions aabbs = Only();
    aabbs.aabbs = true;
    out.Key("aabbs");
    truncated |= WriteLayer(world, aabbs, options.max_primitives, &out);
  }

  // Each body's box for hovering: the union of its shapes' broad-phase
  // boxes. The public API lists shapes only through queries, so one query
  // over the whole world finds them all (sensors are not reported; a body
  // with sensors alone gets a small box around its origin).
  std::map<uint32_t, AABB> boxes;
  const AABB everything{{bounds.lower.x - 1.0f, bounds.lower.y - 1.0f},
                        {bounds.upper.x + 1.0f, bounds.upper.y + 1.0f}};
  for (const ShapeId shape : world.OverlapAabb(everything)) {
    absl::StatusOr<BodyId> body = world.GetShapeBody(shape);
    absl::StatusOr<AABB> box = world.GetShapeAabb(shape);
    if (!body.ok() || !box.ok()) continue;
    auto [it, inserted] = boxes.emplace(body->index, *box);
    if (!inserted) {
      it->second.lower = Min(it->second.lower, box->lower);
      it->second.upper = Max(it->second.upper, box->upper);
    }
  }
  out.Key("bodies");
  out.BeginArray();
  size_t listed = 0;
  for (const BodyId id : world.GetBodyIds()) {
    if (listed++ >= options.max_primitives) {
      truncated = true;
      break;
    }
    absl::StatusOr<BodyInfo> body = world.GetBody(id);
    if (!body.ok()) continue;
    const Vec2 p = body->transform.p;
    AABB box{{p.x - 0.1f, p.y - 0.1f}, {p.x + 0.1f, p.y + 0.1f}};
    if (auto it = boxes.find(id.index); it != boxes.end()) box = it->second;
    out.BeginArray();
    out.Uint(id.index);
    out.Uint(id.generation);
    out.Uint(sim.OwnerOf(id));
    out.Uint(static_cast<uint32_t>(body->type));
    out.Int(body->is_awake ? 1 : 0);
    out.Number(p.x, 4);
    out.Number(p.y, 4);
    out.Number(body->angle, 4);
    out.Number(body->linear_velocity.x, 4);
    out.Number(body->linear_velocity.y, 4);
    out.Number(body->angular_velocity, 4);
    out.Number(body->mass, 4);
    out.Number(box.lower.x, 3);
    out.Number(box.lower.y, 3);
    out.Number(box.upper.x, 3);
    out.Number(box.upper.y, 3);
    out.EndArray();
  }
  out.EndArray();
  out.Key("truncated");
  out.Bool(truncated);
  out.EndObject();
  return out.Take();
}

}  // namespace atl::viewer
