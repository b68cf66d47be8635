#include "atoll/world_diff.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "world/world_state.h"

namespace atl {
namespace {

bool Same(float x, float y) { return std::memcmp(&x, &y, sizeof(float)) == 0; }
bool Same(Vec2 x, Vec2 y) { return Same(x.x, y.x) && Same(x.y, y.y); }

std::string Pair(Vec2 a, Vec2 b) {
  return absl::StrFormat("(%.9g, %.9g) vs (%.9g, %.9g)", a.x, a.y, b.x, b.y);
}

}  // namespace

std::vector<BodyDiff> DiffWorlds(const World& a, const World& b, size_t limit) {
  const WorldState& sa = a.state();
  const WorldState& sb = b.state();
  std::vector<BodyDiff> out;
  const int32_t n = Max(sa.body_ids.Capacity(), sb.body_ids.Capacity());
  for (int32_t i = 0; i < n && out.size() < limit; ++i) {
    const bool in_a = sa.body_ids.IsAlive(i), in_b = sb.body_ids.IsAlive(i);
    if (!in_a && !in_b) continue;
    BodyDiff d;
    d.index = static_cast<uint32_t>(i);
    if (!in_a || !in_b) {
      d.what = in_a ? "missing in b" : "missing in a";
      out.push_back(d);
      continue;
    }
    d.a = a.GetBody(MakeBodyId(sa, i)).value();
    d.b = b.GetBody(MakeBodyId(sb, i)).value();
    std::vector<std::string> parts;
    if (d.a.type != d.b.type) parts.push_back("type");
    if (!Same(d.a.transform.p, d.b.transform.p)) {
      parts.push_back("position " + Pair(d.a.transform.p, d.b.transform.p));
    }
    if (!Same(d.a.transform.q.c, d.b.transform.q.c) || !Same(d.a.transform.q.s, d.b.transform.q.s)) {
      parts.push_back(absl::StrFormat("angle %.9g vs %.9g", d.a.angle, d.b.angle));
    }
    if (!Same(d.a.linear_velocity, d.b.linear_velocity)) {
      parts.push_back("velocity " + Pair(d.a.linear_velocity, d.b.linear_velocity));
    }
    if (!Same(d.a.angular_velocity, d.b.angular_velocity)) {
      parts.push_back(absl::StrFormat("angular velocity %.9g vs %.9g", d.a.angular_velocity,
                                      d.b.angular_velocity));
    }
    if (d.a.is_awake != d.b.is_awake) parts.push_back("awake flag");
    if (parts.empty()) continue;
    d.what = absl::StrJoin(parts, "; ");
    out.push_back(std::move(d));
  }
  return out;
}

std::string FormatDiffs(const std::vector<BodyDiff>& diffs) {
  std::string out;
  for (const BodyDiff& d : diffs) absl::StrAppend(&out, "body ", d.index, ": ", d.what, "\n");
  return out;
}

}  // namespace atl
