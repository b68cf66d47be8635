// QueryService through the real atoll-server: ray casts and overlaps return
// what closed-form geometry predicts, respect filters and skip sensors,
// name the tick whose state they saw, refuse bad requests naming the field,
// and never change the world (its hash chain stays that of an identical
// world nobody queried).

#include <gmock/gmock.h>
#include <google/protobuf/util/json_util.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "atoll/client/connection.h"
#include "atoll/client/query.h"
#include "atoll/server/simulation.h"
#include "atoll/v1/query.grpc.pb.h"
#include "server/service_test_util.h"
#include "support/server_process.h"

namespace atl::testing {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::StartsWith;

// Static shapes at known places (body i has shape i), plus motion far away:
//   0  box at (5, 0), half-widths 0.5 x 1, in group -3
//   1  box at (10, 0), half-widths 1 x 1
//   2  circle at (15, 0), radius 0.5
//   3  box at (7.5, 5), half-widths 0.5 x 0.5 (above the x axis)
//   4  box at (12.5, 0), half-widths 0.25 x 0.25, category 2
//   5  sensor box at (2.5, 0), half-widths 0.25 x 0.25 (never reported)
//   6  ground at (-20, -0.5), half-widths 2 x 0.5
//   7  a ball of radius 0.5 falling from (-20, 30) onto the ground
//   8  a kinematic bar spinning forever at (-40, 0)
constexpr char kGalleryJson[] = R"json({
  "bodies": [
    {"type": "BODY_TYPE_STATIC", "position": {"x": 5, "y": 0},
     "shapes": [{"box": {"halfWidth": 0.5, "halfHeight": 1},
                 "filter": {"categoryBits": "1", "maskBits": "18446744073709551615",
                            "groupIndex": -3}}]},
    {"type": "BODY_TYPE_STATIC", "position": {"x": 10, "y": 0},
     "shapes": [{"box": {"halfWidth": 1, "halfHeight": 1}}]},
    {"type": "BODY_TYPE_STATIC", "position": {"x": 15, "y": 0},
     "shapes": [{"circle": {"radius": 0.5}}]},
    {"type": "BODY_TYPE_STATIC", "position": {"x": 7.5, "y": 5},
     "shapes": [{"box": {"halfWidth": 0.5, "halfHeight": 0.5}}]},
    {"type": "BODY_TYPE_STATIC", "position": {"x": 12.5, "y": 0},
     "shapes": [{"box": {"halfWidth": 0.25, "halfHeight": 0.25},
                 "filter": {"categoryBits": "2", "maskBits": "18446744073709551615"}}]},
    {"type": "BODY_TYPE_STATIC", "position": {"x": 2.5, "y": 0},
     "shapes": [{"box": {"halfWidth": 0.25, "halfHeight": 0.25}, "isSensor": true}]},
    {"type": "BODY_TYPE_STATIC", "position": {"x": -20, "y": -0.5},
     "shapes": [{"box": {"halfWidth": 2, "halfHeight": 0.5}}]},
    {"type": "BODY_TYPE_DYNAMIC", "position": {"x": -20, "y": 30},
     "shapes": [{"circle": {"radius": 0.5}}]},
    {"type": "BODY_TYPE_KINEMATIC", "position": {"x": -40, "y": 0},
     "angularVelocity": 2, "disallowSleep": true,
     "shapes": [{"box": {"halfWidth": 1, "halfHeight": 0.2}}]}
  ]
})json";

v1::SceneSpec GalleryScene() {
  v1::SceneSpec spec;
  const auto status =
      google::protobuf::util::JsonStringToMessage(kGalleryJson, &spec);
  EXPECT_TRUE(status.ok()) << status.ToString();
  return spec;
}

v1::Vec2 V(float x, float y) {
  v1::Vec2 v;
  v.set_x(x);
  v.set_y(y);
  return v;
}

v1::FilterSpec MakeFilter(uint64_t category, uint64_t mask, int32_t group = 0) {
  v1::FilterSpec f;
  f.set_category_bits(category);
  f.set_mask_bits(mask);
  f.set_group_index(group);
  return f;
}

v1::CastRayRequest Ray(const std::string& world, float x, float y, float dx,
                       float dy) {
  return client::MakeRayRequest(world, {x, y}, {dx, dy});
}

v1::OverlapAabbRequest Aabb(const std::string& world, float x0, float y0,
                            float x1, float y1) {
  return client::MakeAabbRequest(world, {x0, y0}, {x1, y1});
}

v1::OverlapShapeRequest Shape(const std::string& world, float x, float y,
                              float angle = 0) {
  v1::OverlapShapeRequest r;
  r.set_world_id(world);
  *r.mutable_shape()->mutable_position() = V(x, y);
  r.mutable_shape()->set_angle(angle);
  return r;
}

// The body indices of an overlap's shapes, in the order returned.
std::vector<uint32_t> Bodies(const v1::OverlapResponse& response) {
  std::vector<uint32_t> out;
  for (const v1::ShapeHit& s : response.shapes())
    out.push_back(s.body().index());
  return out;
}

std::vector<uint32_t> Bodies(const v1::CastRayAllResponse& response) {
  std::vector<uint32_t> out;
  for (const v1::RayHit& h : response.hits()) out.push_back(h.body().index());
  return out;
}

class QueryServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = ServerProcess::Start();
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    address_ = server_->address();
    stub_ = v1::QueryService::NewStub(client::MakeChannel(address_));
    queries_ = std::make_unique<client::QueryClient>(
        client::MakeChannel(address_), address_, absl::Seconds(10));
  }

  v1::WorldInfo CreateGallery(const std::string& id) {
    v1::CreateWorldRequest request;
    request.set_world_id(id);
    *request.mutable_scene() = GalleryScene();
    request.mutable_config()->set_tick_rate_hz(60);
    return CreateWorld(address_, request).world();
  }

  // Waits until world `id` has stepped past `tick`.
  void WaitForTick(const std::string& id, uint64_t tick) {
    const auto deadline =
        std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (GetWorld(address_, id).tick() <= tick) {
      ASSERT_LT(std::chrono::steady_clock::now(), deadline)
          << id << " stopped ticking";
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }

  // The recorded hash chains of worlds `a` and `b` agree on every tick both
  // have reached, and they share at least `min_ticks` ticks.
  void ExpectSameHashChain(const std::string& a, const std::string& b,
                           uint64_t min_ticks) {
    const v1::Recording ra = GetRecording(address_, a);
    const v1::Recording rb = GetRecording(address_, b);
    std::map<uint64_t, uint64_t> hashes;
    for (const v1::RecordedTick& t : ra.ticks())
      hashes[t.tick()] = t.state_hash();
    uint64_t common = 0;
    for (const v1::RecordedTick& t : rb.ticks()) {
      auto it = hashes.find(t.tick());
      if (it == hashes.end()) continue;
      ++common;
      ASSERT_EQ(it->second, t.state_hash())
          << a << " and " << b << " differ at tick " << t.tick();
    }
    EXPECT_GE(common, min_ticks);
  }

  std::unique_ptr<ServerProcess> server_;
  std::string address_;
  std::unique_ptr<v1::QueryService::Stub> stub_;
  std::unique_ptr<client::QueryClient> queries_;
};

TEST_F(QueryServiceTest, RayCastHitsTheBoxClosedFormGeometryPredicts) {
  CreateGallery("g");
  // From (x0, 0) along +x over len = 20: box 0 (center 5, half-width 0.5) is
  // entered at x = 4.5, so fraction (5 - 0.5 - 0) / 20, normal (-1, 0). The
  // sensor at x = 2.5 is skipped.
  absl::StatusOr<v1::CastRayClosestResponse> r =
      queries_->CastRayClosest(Ray("g", 0, 0, 20, 0));
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(r->has_hit());
  EXPECT_EQ(r->hit().body().index(), 0u);
  EXPECT_EQ(r->hit().body().generation(), 1u);
  EXPECT_EQ(r->hit().shape(), 0u);
  EXPECT_NEAR(r->hit().fraction(), (5.0f - 0.5f - 0.0f) / 20.0f, 1e-6);
  EXPECT_NEAR(r->hit().point().x(), 4.5f, 1e-5);
  EXPECT_NEAR(r->hit().point().y(), 0.0f, 1e-5);
  EXPECT_NEAR(r->hit().normal().x(), -1.0f, 1e-6);
  EXPECT_NEAR(r->hit().normal().y(), 0.0f, 1e-6);

  // From the other side, starting between box 1 and box 4: box 1's right
  // face (x = 11) at fraction (11.5 - 11) / 10, normal (+1, 0).
  r = queries_->CastRayClosest(Ray("g", 11.5f, 0.5f, -10, 0));
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(r->has_hit());
  EXPECT_EQ(r->hit().body().index(), 1u);
  EXPECT_NEAR(r->hit().fraction(), 0.05f, 1e-6);
  EXPECT_NEAR(r->hit().normal().x(), 1.0f, 1e-6);

  // Down onto box 3's top (y = 5.5) from y = 8 over 4 m: (8 - 5.5) / 4.
  r = queries_->CastRayClosest(Ray("g", 7.5f, 8, 0, -4));
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_TRUE(r->has_hit());
  EXPECT_EQ(r->hit().body().index(), 3u);
  EXPECT_NEAR(r->hit().fraction(), 2.5f / 4.0f, 1e-6);
  EXPECT_NEAR(r->hit().normal().y(), 1.0f, 1e-6);

  // A ray that stops short of everything hits nothing.
  r = queries_->CastRayClosest(Ray("g", 0, 0, 4, 0));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->has_hit());
}

TEST_F(QueryServiceTest, RayCastAllReturnsEveryShapeNearestFirst) {
  CreateGallery("g");
  absl::StatusOr<v1::CastRayAllResponse> r =
      queries_->CastRayAll(Ray("g", 0, 0, 20, 0));
  ASSERT_TRUE(r.ok()) << r.status();
  // Box 0 at 4.5, box 1 at 9, box 4 at 12.25, circle 2 at 14.5 (of 20).
  EXPECT_THAT(Bodies(*r), ElementsAre(0u, 1u, 4u, 2u));
  ASSERT_EQ(r->hits_size(), 4);
  const float expected[] = {4.5f / 20, 9.0f / 20, 12.25f / 20, 14.5f / 20};
  for (int i = 0; i < 4; ++i) {
    EXPECT_NEAR(r->hits(i).fraction(), expected[i], 1e-6) << i;
    EXPECT_NEAR(r->hits(i).point().x(), expected[i] * 20, 1e-4) << i;
    EXPECT_NEAR(r->hits(i).normal().x(), -1.0f, 1e-5) << i;
  }
  // Short of everything: no hits, still a tick.
  r = queries_->CastRayAll(Ray("g", 0, 3, 20, 0));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(r->hits(), IsEmpty());
}

TEST_F(QueryServiceTest, AabbOverlapReturnsExactlyTheShapesWhoseBoundsOverlap) {
  CreateGallery("g");
  absl::StatusOr<v1::OverlapResponse> r =
      queries_->OverlapAabb(Aabb("g", 4, -0.5f, 11, 0.5f));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(Bodies(*r), ElementsAre(0u, 1u));
  // The sensor (5) lies inside this one too, and is not reported.
  r = queries_->OverlapAabb(Aabb("g", 2, -2, 8, 6));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(Bodies(*r), ElementsAre(0u, 3u));
  // Between the shapes (gaps wider than the bounds' 0.02 m margin).
  r = queries_->OverlapAabb(Aabb("g", 5.6f, -1, 8.9f, 1));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(Bodies(*r), IsEmpty());
  // A degenerate box (a point) inside box 1.
  r = queries_->OverlapAabb(Aabb("g", 10, 0, 10, 0));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(Bodies(*r), ElementsAre(1u));
}

TEST_F(QueryServiceTest, ShapeOverlapTestsTheExactGeometry) {
  CreateGallery("g");
  // A circle of radius 1 at (7.5, 4) reaches box 3's bottom (y = 4.5).
  v1::OverlapShapeRequest circle = Shape("g", 7.5f, 4);
  circle.mutable_shape()->mutable_circle()->set_radius(1);
  absl::StatusOr<v1::OverlapResponse> r = queries_->OverlapShape(circle);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(Bodies(*r), ElementsAre(3u));
  // Radius 0.4 stops 0.1 short of it.
  circle.mutable_shape()->mutable_circle()->set_radius(0.4f);
  r = queries_->OverlapShape(circle);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(Bodies(*r), IsEmpty());

  // A thin vertical box turned by pi/2 becomes a bar from x = 4.5 to 10.5
  // along the axis: boxes 0 and 1.
  v1::OverlapShapeRequest bar = Shape("g", 7.5f, 0, 1.5707964f);
  bar.mutable_shape()->mutable_box()->set_half_width(0.1f);
  bar.mutable_shape()->mutable_box()->set_half_height(3);
  r = queries_->OverlapShape(bar);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(Bodies(*r), ElementsAre(0u, 1u));

  // A triangle whose right corner (12.4, -0.2) pokes into box 4.
  v1::OverlapShapeRequest triangle = Shape("g", 0, 0);
  for (const v1::Vec2& p :
       {V(11.5f, -0.2f), V(12.4f, -0.2f), V(11.95f, 0.5f)}) {
    *triangle.mutable_shape()->mutable_polygon()->add_points() = p;
  }
  r = queries_->OverlapShape(triangle);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(Bodies(*r), ElementsAre(4u));

  // A capsule lying 0.05 m into box 1's top.
  v1::OverlapShapeRequest capsule = Shape("g", 10, 1.05f);
  *capsule.mutable_shape()->mutable_capsule()->mutable_center1() = V(-1, 0);
  *capsule.mutable_shape()->mutable_capsule()->mutable_center2() = V(1, 0);
  capsule.mutable_shape()->mutable_capsule()->set_radius(0.1f);
  r = queries_->OverlapShape(capsule);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_THAT(Bodies(*r), ElementsAre(1u));
}

TEST_F(QueryServiceTest, FilterDecidesWhichShapesAQuerySees) {
  CreateGallery("g");
  // Same negative group as box 0: never seen, so box 1 is the closest.
  v1::CastRayRequest ray = Ray("g", 0, 0, 20, 0);
  *ray.mutable_filter() = MakeFilter(1, ~uint64_t{0}, -3);
  absl::StatusOr<v1::CastRayClosestResponse> closest =
      queries_->CastRayClosest(ray);
  ASSERT_TRUE(closest.ok()) << closest.status();
  EXPECT_EQ(closest->hit().body().index(), 1u);
  EXPECT_NEAR(closest->hit().fraction(), 9.0f / 20, 1e-6);

  // Only category 1: box 4 (category 2) drops out.
  *ray.mutable_filter() = MakeFilter(1, 1);
  absl::StatusOr<v1::CastRayAllResponse> all = queries_->CastRayAll(ray);
  ASSERT_TRUE(all.ok()) << all.status();
  EXPECT_THAT(Bodies(*all), ElementsAre(0u, 1u, 2u));

  v1::OverlapAabbRequest aabb = Aabb("g", 12, -1, 16, 1);
  absl::StatusOr<v1::OverlapResponse> overlap = queries_->OverlapAabb(aabb);
  ASSERT_TRUE(overlap.ok()) << overlap.status();
  EXPECT_THAT(Bodies(*overlap), ElementsAre(2u, 4u));
  *aabb.mutable_filter() = MakeFilter(1, 1);
  overlap = queries_->OverlapAabb(aabb);
  ASSERT_TRUE(overlap.ok()) << overlap.status();
  EXPECT_THAT(Bodies(*overlap), ElementsAre(2u));
  // Only category 2.
  *aabb.mutable_filter() = MakeFilter(1, 2);
  overlap = queries_->OverlapAabb(aabb);
  ASSERT_TRUE(overlap.ok()) << overlap.status();
  EXPECT_THAT(Bodies(*overlap), ElementsAre(4u));

  v1::OverlapShapeRequest circle = Shape("g", 12.5f, 0);
  circle.mutable_shape()->mutable_circle()->set_radius(0.5f);
  *circle.mutable_filter() = MakeFilter(1, 1);
  overlap = queries_->OverlapShape(circle);
  ASSERT_TRUE(overlap.ok()) << overlap.status();
  EXPECT_THAT(Bodies(*overlap), IsEmpty());
}

TEST_F(QueryServiceTest, TickNamesTheStateTheQuerySaw) {
  const v1::WorldInfo created = CreateGallery("g");
  // The ball falls from y = 30 for over two seconds: a ray down onto it
  // hits at a different fraction every tick. The same query on a local
  // replica stepped to the returned tick must agree bit for bit.
  absl::StatusOr<std::unique_ptr<server::Simulation>> replica =
      server::Simulation::Create(GalleryScene(), created.config());
  ASSERT_TRUE(replica.ok()) << replica.status();
  uint64_t previous = 0;
  int moving = 0;
  for (int i = 0; i < 5; ++i) {
    const uint64_t before = GetWorld(address_, "g").tick();
    absl::StatusOr<v1::CastRayClosestResponse> r =
        queries_->CastRayClosest(Ray("g", -20, 40, 0, -45));
    const uint64_t after = GetWorld(address_, "g").tick();
    ASSERT_TRUE(r.ok()) << r.status();
    // A tick the world has reached, at or after the one GetWorld saw first.
    EXPECT_LE(before, r->tick());
    EXPECT_LE(r->tick(), after);
    EXPECT_LE(previous, r->tick());
    previous = r->tick();
    const float before_fraction =
        (*replica)->world().CastRayClosest({-20, 40}, {0, -45})->fraction;
    while ((*replica)->tick() < r->tick())
      ASSERT_TRUE((*replica)->Step({}, nullptr).ok());
    const std::optional<RayResult> local =
        (*replica)->world().CastRayClosest({-20, 40}, {0, -45});
    ASSERT_TRUE(local.has_value());
    ASSERT_TRUE(r->has_hit());
    EXPECT_EQ(r->hit().body().index(), 7u) << "the ball";
    EXPECT_EQ(r->hit().fraction(), local->fraction) << "tick " << r->tick();
    EXPECT_EQ(r->hit().point().y(), local->point.y) << "tick " << r->tick();
    if (local->fraction != before_fraction) ++moving;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_GT(moving, 0) << "the ball never moved between queries";
}

// One bad request: the RPC to make, the code and how the message starts.
struct Refusal {
  std::string name;
  std::function<grpc::Status(v1::QueryService::Stub*, grpc::ClientContext*)>
      call;
  grpc::StatusCode code;
  std::string prefix;
};

template <typename Request, typename Response>
std::function<grpc::Status(v1::QueryService::Stub*, grpc::ClientContext*)> Rpc(
    grpc::Status (v1::QueryService::Stub::*method)(grpc::ClientContext*,
                                                   const Request&, Response*),
    Request request) {
  return [method, request](v1::QueryService::Stub* stub,
                           grpc::ClientContext* context) {
    Response response;
    return (stub->*method)(context, request, &response);
  };
}

std::vector<Refusal> Refusals(const std::string& w) {
  using S = v1::QueryService::Stub;
  const float nan = std::nanf("");
  const float inf = INFINITY;
  const grpc::StatusCode kInvalid = grpc::StatusCode::INVALID_ARGUMENT;
  std::vector<Refusal> out;
  auto ray = [&](const std::string& name, v1::CastRayRequest r,
                 const std::string& prefix) {
    out.push_back(
        {"closest " + name, Rpc(&S::CastRayClosest, r), kInvalid, prefix});
    out.push_back({"all " + name, Rpc(&S::CastRayAll, r), kInvalid, prefix});
  };
  ray("zero-length", Ray(w, 1, 1, 0, 0), "ray.translation: zero-length ray");
  ray("NaN origin.x", Ray(w, nan, 0, 1, 0), "ray.origin.x: must be finite");
  ray("infinite origin.y", Ray(w, 0, -inf, 1, 0),
      "ray.origin.y: must be finite");
  ray("NaN translation.y", Ray(w, 0, 0, 1, nan),
      "ray.translation.y: must be finite");
  ray("far origin", Ray(w, 2e5f, 0, 1, 0), "ray.origin.x: must be within");
  ray("huge translation", Ray(w, 0, 0, 0, 1e6f),
      "ray.translation.y: must be within");
  v1::CastRayRequest no_ray;
  no_ray.set_world_id(w);
  ray("no ray", no_ray, "ray: required");

  auto aabb = [&](const std::string& name, v1::OverlapAabbRequest r,
                  const std::string& prefix) {
    out.push_back({"aabb " + name, Rpc(&S::OverlapAabb, r), kInvalid, prefix});
  };
  aabb("lower.x > upper.x", Aabb(w, 2, 0, 1, 1), "aabb: lower.x > upper.x");
  aabb("lower.y > upper.y", Aabb(w, 0, 2, 1, 1), "aabb: lower.y > upper.y");
  aabb("NaN upper.y", Aabb(w, 0, 0, 1, nan), "aabb.upper.y: must be finite");
  aabb("infinite lower.x", Aabb(w, -inf, 0, 1, 1),
       "aabb.lower.x: must be finite");
  v1::OverlapAabbRequest no_aabb;
  no_aabb.set_world_id(w);
  aabb("missing", no_aabb, "aabb: required");

  auto shape = [&](const std::string& name, v1::OverlapShapeRequest r,
                   const std::string& prefix) {
    out.push_back(
        {"shape " + name, Rpc(&S::OverlapShape, r), kInvalid, prefix});
  };
  v1::OverlapShapeRequest s = Shape(w, 0, 0);
  s.mutable_shape()->mutable_circle()->set_radius(0);
  shape("zero radius", s, "shape.circle: ");
  s.mutable_shape()->mutable_circle()->set_radius(-1);
  shape("negative radius", s, "shape.circle: ");
  s.mutable_shape()->mutable_circle()->set_radius(nan);
  shape("NaN radius", s, "shape.circle: ");
  s.mutable_shape()->mutable_circle()->set_radius(1);
  s.mutable_shape()->mutable_position()->set_x(nan);
  shape("NaN position", s, "shape.position.x: must be finite");
  s = Shape(w, 0, 0, nan);
  s.mutable_shape()->mutable_circle()->set_radius(1);
  shape("NaN angle", s, "shape.angle: must be finite");
  s = Shape(w, 0, 0);
  *s.mutable_shape()->mutable_capsule()->mutable_center1() = V(nan, 0);
  *s.mutable_shape()->mutable_capsule()->mutable_center2() = V(1, 0);
  s.mutable_shape()->mutable_capsule()->set_radius(0.5f);
  shape("NaN capsule center", s, "shape.capsule: ");
  s = Shape(w, 0, 0);
  s.mutable_shape()->mutable_box()->set_half_width(0);
  s.mutable_shape()->mutable_box()->set_half_height(1);
  shape("zero half-width box", s, "shape.box: ");
  s = Shape(w, 0, 0);
  for (const v1::Vec2& p : {V(0, 0), V(1, 0)})
    *s.mutable_shape()->mutable_polygon()->add_points() = p;
  shape("two-point polygon", s,
        "shape.polygon.points: wants 3..8 points, got 2");
  s = Shape(w, 0, 0);
  for (const v1::Vec2& p : {V(0, 0), V(2, 0), V(2, 2), V(0, 2), V(1, 1.5f)}) {
    *s.mutable_shape()->mutable_polygon()->add_points() = p;
  }
  shape("concave polygon", s, "shape.polygon.points: not convex");
  s = Shape(w, 0, 0);
  for (const v1::Vec2& p : {V(0, 0), V(1, 0), V(2, 0)}) {
    *s.mutable_shape()->mutable_polygon()->add_points() = p;
  }
  shape("collinear polygon", s, "shape.polygon.points: ");
  s = Shape(w, 0, 0);
  for (const v1::Vec2& p : {V(0, 0), V(1, 0), V(nan, 1)}) {
    *s.mutable_shape()->mutable_polygon()->add_points() = p;
  }
  shape("NaN polygon point", s, "shape.polygon.points[2].x: must be finite");
  s = Shape(w, 0, 0);
  shape("no geometry", s, "shape: no geometry");
  v1::OverlapShapeRequest no_shape;
  no_shape.set_world_id(w);
  shape("missing", no_shape, "shape: required");

  const grpc::StatusCode kNotFound = grpc::StatusCode::NOT_FOUND;
  out.push_back({"closest unknown world",
                 Rpc(&S::CastRayClosest, Ray("nope", 0, 0, 1, 0)), kNotFound,
                 "world_id: no world 'nope'"});
  out.push_back({"all unknown world",
                 Rpc(&S::CastRayAll, Ray("nope", 0, 0, 1, 0)), kNotFound,
                 "world_id: "});
  out.push_back({"aabb unknown world",
                 Rpc(&S::OverlapAabb, Aabb("nope", 0, 0, 1, 1)), kNotFound,
                 "world_id: "});
  v1::OverlapShapeRequest unknown = Shape("nope", 0, 0);
  unknown.mutable_shape()->mutable_circle()->set_radius(1);
  out.push_back({"shape unknown world", Rpc(&S::OverlapShape, unknown),
                 kNotFound, "world_id: "});
  return out;
}

TEST_F(QueryServiceTest, BadRequestsAreRefusedNamingTheFieldAndChangeNothing) {
  CreateGallery("g");
  CreateGallery("reference");
  const uint64_t start = GetWorld(address_, "g").tick();
  for (const Refusal& refusal : Refusals("g")) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(10));
    const grpc::Status s = refusal.call(stub_.get(), &context);
    EXPECT_EQ(s.error_code(), refusal.code)
        << refusal.name << ": " << s.error_message();
    EXPECT_THAT(s.error_message(), StartsWith(refusal.prefix)) << refusal.name;
  }
  // Both worlds go on stepping, and "g" exactly like the untouched one.
  WaitForTick("g", start + 30);
  WaitForTick("reference", start + 30);
  ExpectSameHashChain("g", "reference", 30);
}

TEST_F(QueryServiceTest, QueriesNeverChangeTheWorld) {
  CreateGallery("g");
  CreateGallery("reference");
  // Every kind of query, many times, spread over a second of ticks (the
  // ball is falling and landing meanwhile).
  const uint64_t start = GetWorld(address_, "g").tick();
  v1::OverlapShapeRequest circle = Shape("g", -20, 1);
  circle.mutable_shape()->mutable_circle()->set_radius(3);
  for (int i = 0; i < 60; ++i) {
    ASSERT_TRUE(queries_->CastRayClosest(Ray("g", -20, 40, 0, -45)).ok());
    ASSERT_TRUE(queries_->CastRayAll(Ray("g", -50, 0.1f, 100, 0)).ok());
    ASSERT_TRUE(queries_->OverlapAabb(Aabb("g", -50, -50, 50, 50)).ok());
    ASSERT_TRUE(queries_->OverlapShape(circle).ok());
    std::this_thread::sleep_for(std::chrono::milliseconds(15));
  }
  const uint64_t end = GetWorld(address_, "g").tick();
  EXPECT_GT(end, start + 20)
      << "the queries did not span the ticks they should";
  WaitForTick("reference", end);
  ExpectSameHashChain("g", "reference", end - start);
}

}  // namespace
}  // namespace atl::testing
