// atoll query — one QueryService call against a world's newest tick: a ray
// cast (closest, or every hit with --all), an AABB overlap or a shape
// overlap (circle, box or convex polygon). Prints the tick the query ran at,
// then one line per shape found.

#include <cstdio>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "atoll/client/connection.h"
#include "atoll/client/query.h"
#include "client/cli/cli_util.h"
#include "client/cli/commands.h"

ABSL_FLAG(std::string, ray, "",
          "query: cast the ray X,Y,DX,DY (from X,Y to X+DX,Y+DY, m); the "
          "closest hit, every hit with --all");
ABSL_FLAG(bool, all, false, "query: with --ray, every hit, nearest first");
ABSL_FLAG(std::string, aabb, "",
          "query: shapes whose bounds overlap the box X0,Y0,X1,Y1 (lower "
          "and upper corners, m)");
ABSL_FLAG(std::string, circle, "",
          "query: shapes overlapping the circle X,Y,R (center and radius, m)");
ABSL_FLAG(std::string, box, "",
          "query: shapes overlapping the box X,Y,HW,HH[,ANGLE] (center, "
          "half-widths, m; angle, rad)");
ABSL_FLAG(std::string, polygon, "",
          "query: shapes overlapping the convex polygon X1,Y1,X2,Y2,... "
          "(3..8 vertices, world frame, m)");
ABSL_FLAG(std::string, filter, "",
          "query: only shapes the filter CATEGORY,MASK[,GROUP] accepts "
          "(atoll/filter.h; empty: the default filter, category 1 and every "
          "mask bit)");

namespace atl::cli {
namespace {

// Parses the comma-separated numbers of --flag's `value` into *out; false,
// with *error set, when one is not a number or their count is none of
// `counts`.
bool ParseFloats(const std::string& flag, const std::string& value,
                 const std::vector<size_t>& counts, std::vector<float>* out,
                 std::string* error) {
  out->clear();
  for (absl::string_view part : absl::StrSplit(value, ',')) {
    float x = 0;
    if (!absl::SimpleAtof(part, &x)) {
      *error = absl::StrCat("--", flag, ": '", part, "' is not a number");
      return false;
    }
    out->push_back(x);
  }
  for (size_t n : counts) {
    if (out->size() == n) return true;
  }
  std::string wanted;
  for (size_t i = 0; i < counts.size(); ++i) {
    absl::StrAppend(&wanted, i == 0 ? "" : " or ", counts[i]);
  }
  *error = absl::StrCat("--", flag, ": wants ", wanted, " numbers, got ",
                        out->size());
  return false;
}

void SetVec(float x, float y, v1::Vec2* out) {
  out->set_x(x);
  out->set_y(y);
}

// --filter into *filter; false with *error set for a bad value.
bool ParseFilter(const std::string& value, v1::FilterSpec* filter,
                 std::string* error) {
  const std::vector<std::string> parts = absl::StrSplit(value, ',');
  uint64_t category = 0, mask = 0;
  int32_t group = 0;
  if (parts.size() < 2 || parts.size() > 3 ||
      !absl::SimpleAtoi(parts[0], &category) ||
      !absl::SimpleAtoi(parts[1], &mask) ||
      (parts.size() == 3 && !absl::SimpleAtoi(parts[2], &group))) {
    *error = absl::StrCat(
        "--filter: wants CATEGORY,MASK[,GROUP] (integers), got '", value, "'");
    return false;
  }
  filter->set_category_bits(category);
  filter->set_mask_bits(mask);
  filter->set_group_index(group);
  return true;
}

std::string BodyText(const v1::BodyRef& body) {
  return absl::StrCat(body.index(), ":", body.generation());
}

void PrintRayHit(const v1::RayHit& hit) {
  std::printf("shape %u body %s point (%g, %g) normal (%g, %g) fraction %g\n",
              hit.shape(), BodyText(hit.body()).c_str(), hit.point().x(),
              hit.point().y(), hit.normal().x(), hit.normal().y(),
              hit.fraction());
}

void PrintOverlap(const v1::OverlapResponse& response) {
  std::printf("tick %llu\n", static_cast<unsigned long long>(response.tick()));
  for (const v1::ShapeHit& s : response.shapes()) {
    std::printf("shape %u body %s\n", s.shape(), BodyText(s.body()).c_str());
  }
  if (response.shapes_size() == 0) std::printf("nothing\n");
}

}  // namespace

int RunQueryCommand(const std::vector<std::string>& args) {
  if (args.size() != 1) return Usage("query needs one world id");
  const std::string& world = args[0];
  const std::string ray = absl::GetFlag(FLAGS_ray);
  const std::string aabb = absl::GetFlag(FLAGS_aabb);
  const std::string circle = absl::GetFlag(FLAGS_circle);
  const std::string box = absl::GetFlag(FLAGS_box);
  const std::string polygon = absl::GetFlag(FLAGS_polygon);
  const int kinds = !ray.empty() + !aabb.empty() + !circle.empty() +
                    !box.empty() + !polygon.empty();
  if (kinds != 1) {
    return Usage(
        "query wants exactly one of --ray, --aabb, --circle, --box, "
        "--polygon");
  }
  if (absl::GetFlag(FLAGS_all) && ray.empty()) {
    return Usage("--all goes with --ray");
  }
  v1::FilterSpec filter;
  const std::string filter_value = absl::GetFlag(FLAGS_filter);
  std::string error;
  if (!filter_value.empty() && !ParseFilter(filter_value, &filter, &error)) {
    return Usage(error);
  }
  absl::StatusOr<std::string> address = ServerAddress();
  if (!address.ok()) return Fail(address.status());
  const client::QueryClient queries(client::MakeChannel(*address), *address,
                                    Timeout());
  std::vector<float> v;

  if (!ray.empty()) {
    if (!ParseFloats("ray", ray, {4}, &v, &error)) return Usage(error);
    v1::CastRayRequest request =
        client::MakeRayRequest(world, {v[0], v[1]}, {v[2], v[3]});
    if (!filter_value.empty()) *request.mutable_filter() = filter;
    if (absl::GetFlag(FLAGS_all)) {
      absl::StatusOr<v1::CastRayAllResponse> all = queries.CastRayAll(request);
      if (!all.ok()) return Fail(all.status());
      std::printf("tick %llu\n", static_cast<unsigned long long>(all->tick()));
      for (const v1::RayHit& hit : all->hits()) PrintRayHit(hit);
      if (all->hits_size() == 0) std::printf("no hit\n");
      return 0;
    }
    absl::StatusOr<v1::CastRayClosestResponse> closest =
        queries.CastRayClosest(request);
    if (!closest.ok()) return Fail(closest.status());
    std::printf("tick %llu\n",
                static_cast<unsigned long long>(closest->tick()));
    if (closest->has_hit()) {
      PrintRayHit(closest->hit());
    } else {
      std::printf("no hit\n");
    }
    return 0;
  }

  if (!aabb.empty()) {
    if (!ParseFloats("aabb", aabb, {4}, &v, &error)) return Usage(error);
    v1::OverlapAabbRequest request =
        client::MakeAabbRequest(world, {v[0], v[1]}, {v[2], v[3]});
    if (!filter_value.empty()) *request.mutable_filter() = filter;
    absl::StatusOr<v1::OverlapResponse> found = queries.OverlapAabb(request);
    if (!found.ok()) return Fail(found.status());
    PrintOverlap(*found);
    return 0;
  }

  v1::OverlapShapeRequest request;
  request.set_world_id(world);
  if (!filter_value.empty()) *request.mutable_filter() = filter;
  v1::QueryShape* shape = request.mutable_shape();
  if (!circle.empty()) {
    if (!ParseFloats("circle", circle, {3}, &v, &error)) return Usage(error);
    SetVec(v[0], v[1], shape->mutable_position());
    shape->mutable_circle()->set_radius(v[2]);
  } else if (!box.empty()) {
    if (!ParseFloats("box", box, {4, 5}, &v, &error)) return Usage(error);
    SetVec(v[0], v[1], shape->mutable_position());
    shape->mutable_box()->set_half_width(v[2]);
    shape->mutable_box()->set_half_height(v[3]);
    if (v.size() == 5) shape->set_angle(v[4]);
  } else {
    if (!ParseFloats("polygon", polygon, {6, 8, 10, 12, 14, 16}, &v, &error)) {
      return Usage(error);
    }
    for (size_t i = 0; i < v.size(); i += 2) {
      SetVec(v[i], v[i + 1], shape->mutable_polygon()->add_points());
    }
  }
  absl::StatusOr<v1::OverlapResponse> found = queries.OverlapShape(request);
  if (!found.ok()) return Fail(found.status());
  PrintOverlap(*found);
  return 0;
}

}  // namespace atl::cli
