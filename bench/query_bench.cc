// atoll-bench query: what a spatial query costs on a 1 000-body world, in
// the engine alone and as a QueryService round trip.
//
// CSV: kind,path,bodies,queries,median_us,p99_us,mean_results
//   kind          ray_closest, ray_all, overlap_aabb, overlap_circle; and
//                 refused (rpc only): a CastRayClosest the server refuses
//                 before touching the world (zero-length ray), the cost of
//                 the round trip itself
//   path          engine: the World call alone (atoll/world.h), on a world
//                 stepped (untimed) every --per_tick queries, as a hosted
//                 world is between queries, each kind from the same state;
//                 rpc: QueryService through a client on this machine (one
//                 channel, one call at a time, over loopback TCP) to an
//                 atoll-server running in this process, whose world ticks
//                 at --tick_rate meanwhile: the figure includes encoding,
//                 both gRPC stacks, the wait for a tick in progress (the
//                 query holds the world's lock, WorldHost::Query) and the
//                 response.
//   median_us, p99_us  wall time per query, microseconds
//   mean_results  shapes per answer, so both paths can be seen to do the
//                 same work
//
// The world is the falling_squares scene of --bodies squares (the rollback
// benchmark's 1 000-body world in full motion), one second (60 steps) into
// the fall. Both paths run the same queries: --queries per kind drawn with a
// fixed seed, at points inside the world's bounds: rays of a quarter of the
// bounds' diagonal in random directions, 4 m x 4 m boxes, circles of radius
// 1 m.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "args.h"
#include "atoll/client/connection.h"
#include "atoll/client/query.h"
#include "atoll/scene.h"
#include "atoll/server/server.h"
#include "atoll/snapshot.h"
#include "atoll/v1/world.grpc.pb.h"
#include "atoll/world.h"
#include "command.h"

namespace atl::bench {
namespace {

using Clock = std::chrono::steady_clock;

// One query of each kind, at the same place for both paths.
struct QuerySpot {
  Vec2 origin;       // ray origin; box and circle center
  Vec2 translation;  // ray
};

constexpr float kBoxHalf = 2.0f;
constexpr float kCircleRadius = 1.0f;
constexpr const char* kKinds[] = {"ray_closest", "ray_all", "overlap_aabb",
                                  "overlap_circle"};

double Percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  const size_t i = std::min(
      v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())));
  return v[i];
}

std::vector<QuerySpot> MakeSpots(const AABB& bounds, int64_t n) {
  std::mt19937 rng(12345);
  std::uniform_real_distribution<float> x(bounds.lower.x, bounds.upper.x);
  std::uniform_real_distribution<float> y(bounds.lower.y, bounds.upper.y);
  std::uniform_real_distribution<float> angle(-3.14159265f, 3.14159265f);
  const float dx = bounds.upper.x - bounds.lower.x;
  const float dy = bounds.upper.y - bounds.lower.y;
  const float length = 0.25f * std::sqrt(dx * dx + dy * dy);
  std::vector<QuerySpot> spots;
  for (int64_t i = 0; i < n; ++i) {
    const float a = angle(rng);
    spots.push_back(
        {{x(rng), y(rng)}, {length * std::cos(a), length * std::sin(a)}});
  }
  return spots;
}

void PrintRow(const char* kind, const char* path, int32_t bodies,
              const std::vector<double>& us, double results) {
  std::printf("%s,%s,%d,%zu,%.2f,%.2f,%.2f\n", kind, path, bodies, us.size(),
              Percentile(us, 0.5), Percentile(us, 0.99),
              results / static_cast<double>(us.size()));
  std::fflush(stdout);
}

// Runs `query(spot)` (returning its result count) once per spot, timing
// each call; `between` runs untimed before every call.
std::vector<double> TimeEach(
    const std::vector<QuerySpot>& spots,
    const std::function<void(size_t)>& between,
    const std::function<size_t(const QuerySpot&)>& query, double* results) {
  std::vector<double> us;
  us.reserve(spots.size());
  *results = 0;
  for (size_t i = 0; i < spots.size(); ++i) {
    between(i);
    const Clock::time_point t0 = Clock::now();
    const size_t n = query(spots[i]);
    us.push_back(
        std::chrono::duration<double, std::micro>(Clock::now() - t0).count());
    *results += static_cast<double>(n);
  }
  return us;
}

void RunEngine(World* world, float time_step,
               const std::vector<QuerySpot>& spots, int64_t per_tick,
               int32_t bodies) {
  // Every kind starts from the same state.
  const std::string start = SaveSnapshot(*world);
  const auto between = [&](size_t i) {
    if (i % static_cast<size_t>(per_tick) == 0) (void)world->Step(time_step);
  };
  const std::function<size_t(const QuerySpot&)> queries[] = {
      [&](const QuerySpot& s) {
        return world->CastRayClosest(s.origin, s.translation).has_value()
                   ? size_t{1}
                   : 0;
      },
      [&](const QuerySpot& s) {
        return world->CastRayAll(s.origin, s.translation).size();
      },
      [&](const QuerySpot& s) {
        const AABB box{{s.origin.x - kBoxHalf, s.origin.y - kBoxHalf},
                       {s.origin.x + kBoxHalf, s.origin.y + kBoxHalf}};
        return world->OverlapAabb(box).size();
      },
      [&](const QuerySpot& s) {
        const ShapeGeometry circle(Circle{{0, 0}, kCircleRadius});
        return world->OverlapShape(circle, Transform{s.origin, Rot{}}).size();
      },
  };
  for (int k = 0; k < 4; ++k) {
    if (absl::Status s = RestoreSnapshot(start, world); !s.ok()) {
      std::fprintf(stderr, "atoll-bench query: restore: %s\n",
                   std::string(s.message()).c_str());
      return;
    }
    double results = 0;
    const std::vector<double> us =
        TimeEach(spots, between, queries[k], &results);
    PrintRow(kKinds[k], "engine", bodies, us, results);
  }
}

// Fails with a message on stderr; returns false.
template <typename T>
bool Check(const absl::StatusOr<T>& result, const char* what) {
  if (result.ok()) return true;
  std::fprintf(stderr, "atoll-bench query: %s: %s\n", what,
               std::string(result.status().message()).c_str());
  return false;
}

int RunRpc(const std::vector<QuerySpot>& spots, int32_t size, int64_t tick_rate,
           int64_t warmup_ticks, int32_t bodies) {
  server::ServerOptions options;
  options.listen = "127.0.0.1:0";
  absl::StatusOr<std::unique_ptr<server::Server>> server =
      server::Server::Create(options);
  if (!Check(server, "start the server")) return 1;
  const std::string address = (*server)->address();
  const std::shared_ptr<grpc::Channel> channel = client::MakeChannel(address);

  v1::CreateWorldRequest create;
  create.set_world_id("bench");
  create.mutable_scene()->mutable_builtin()->set_name("falling_squares");
  create.mutable_scene()->mutable_builtin()->set_size(size);
  create.mutable_config()->set_tick_rate_hz(static_cast<uint32_t>(tick_rate));
  auto worlds = v1::WorldService::NewStub(channel);
  {
    grpc::ClientContext context;
    v1::CreateWorldResponse created;
    const grpc::Status s = worlds->CreateWorld(&context, create, &created);
    if (!s.ok()) {
      std::fprintf(stderr, "atoll-bench query: CreateWorld: %s\n",
                   s.error_message().c_str());
      return 1;
    }
  }
  // Let the hosted world reach the age of the engine path's world.
  for (;;) {
    grpc::ClientContext context;
    v1::GetWorldRequest get;
    get.set_world_id("bench");
    v1::WorldInfo info;
    if (!worlds->GetWorld(&context, get, &info).ok()) return 1;
    if (info.tick() >= static_cast<uint64_t>(warmup_ticks)) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }

  const client::QueryClient queries(channel, address, absl::Seconds(10));
  const auto ray = [](const QuerySpot& s) {
    return client::MakeRayRequest("bench", s.origin, s.translation);
  };
  bool failed = false;
  const std::function<size_t(const QuerySpot&)> calls[] = {
      [&](const QuerySpot& s) -> size_t {
        auto r = queries.CastRayClosest(ray(s));
        failed |= !Check(r, "CastRayClosest");
        return r.ok() && r->has_hit() ? 1 : 0;
      },
      [&](const QuerySpot& s) -> size_t {
        auto r = queries.CastRayAll(ray(s));
        failed |= !Check(r, "CastRayAll");
        return r.ok() ? static_cast<size_t>(r->hits_size()) : 0;
      },
      [&](const QuerySpot& s) -> size_t {
        auto r = queries.OverlapAabb(client::MakeAabbRequest(
            "bench", {s.origin.x - kBoxHalf, s.origin.y - kBoxHalf},
            {s.origin.x + kBoxHalf, s.origin.y + kBoxHalf}));
        failed |= !Check(r, "OverlapAabb");
        return r.ok() ? static_cast<size_t>(r->shapes_size()) : 0;
      },
      [&](const QuerySpot& s) -> size_t {
        v1::OverlapShapeRequest request;
        request.set_world_id("bench");
        request.mutable_shape()->mutable_circle()->set_radius(kCircleRadius);
        request.mutable_shape()->mutable_position()->set_x(s.origin.x);
        request.mutable_shape()->mutable_position()->set_y(s.origin.y);
        auto r = queries.OverlapShape(request);
        failed |= !Check(r, "OverlapShape");
        return r.ok() ? static_cast<size_t>(r->shapes_size()) : 0;
      },
  };
  const auto nothing = [](size_t) {};
  {
    // The floor under every row above: a call the server refuses before it
    // looks at any world (a zero-length ray), i.e. gRPC and the network
    // stack alone.
    const std::function<size_t(const QuerySpot&)> refused =
        [&](const QuerySpot& s) -> size_t {
      auto r = queries.CastRayClosest(
          client::MakeRayRequest("bench", s.origin, {0, 0}));
      failed |= r.ok();
      return 0;
    };
    double results = 0;
    (void)TimeEach({spots.begin(),
                    spots.begin() + static_cast<std::ptrdiff_t>(
                                        std::min<size_t>(spots.size(), 200))},
                   nothing, refused, &results);
    const std::vector<double> us = TimeEach(spots, nothing, refused, &results);
    if (failed) {
      std::fprintf(stderr,
                   "atoll-bench query: a zero-length ray was accepted\n");
      return 1;
    }
    PrintRow("refused", "rpc", bodies, us, results);
  }
  for (int k = 0; k < 4; ++k) {
    double results = 0;
    // Warm-up: the channel's connection, the server's threads and caches.
    const size_t warm = std::min<size_t>(spots.size(), 200);
    (void)TimeEach(
        {spots.begin(), spots.begin() + static_cast<std::ptrdiff_t>(warm)},
        nothing, calls[k], &results);
    const std::vector<double> us = TimeEach(spots, nothing, calls[k], &results);
    if (failed) return 1;
    PrintRow(kKinds[k], "rpc", bodies, us, results);
  }
  return 0;
}

// The flags of atoll-bench query: its help, and what it parses.
constexpr Flag kQueryFlags[] = {
    {"bodies", "1000", "squares of the falling_squares world"},
    {"queries", "2000", "queries of each kind on each path"},
    {"per_tick", "20", "engine path: queries between two steps of the world"},
    {"tick_rate", "60", "rpc path: tick rate (Hz, 1..240) of the hosted world"},
    {"rpc", "true", "false measures the engine path only"},
};

int RunQuery(const std::vector<std::string>& raw) {
  auto args = Args::Parse(raw, FlagNames(kQueryFlags));
  if (!args.ok()) {
    std::fprintf(stderr, "atoll-bench query: %s\n",
                 std::string(args.status().message()).c_str());
    return 2;
  }
  const absl::StatusOr<int64_t> bodies = args->GetInt("bodies", 1000);
  const absl::StatusOr<int64_t> queries = args->GetInt("queries", 2000);
  const absl::StatusOr<int64_t> per_tick = args->GetInt("per_tick", 20);
  const absl::StatusOr<int64_t> tick_rate = args->GetInt("tick_rate", 60);
  if (!bodies.ok() || !queries.ok() || !per_tick.ok() || !tick_rate.ok() ||
      *bodies < 1 || *bodies > 100000 || *queries < 1 || *per_tick < 1 ||
      *tick_rate < 1 || *tick_rate > 240) {
    std::fprintf(stderr,
                 "atoll-bench query: --bodies in 1..100000, --queries and "
                 "--per_tick >= 1, "
                 "--tick_rate in 1..240\n");
    return 2;
  }
  const std::string rpc = args->Get("rpc", "true");
  if (rpc != "true" && rpc != "false") {
    std::fprintf(stderr,
                 "atoll-bench query: --rpc is true or false, got '%s'\n",
                 rpc.c_str());
    return 2;
  }
  constexpr int64_t kWarmupSteps = 60;
  absl::StatusOr<SceneDesc> desc =
      MakeScene("falling_squares", {.size = static_cast<int32_t>(*bodies)});
  if (!Check(desc, "falling_squares")) return 1;
  absl::StatusOr<std::unique_ptr<World>> world = BuildWorld(*desc);
  if (!Check(world, "build the world")) return 1;
  for (int64_t i = 0; i < kWarmupSteps; ++i)
    (void)(*world)->Step(desc->time_step);
  const int32_t body_count = (*world)->GetCounters().bodies;
  const std::vector<QuerySpot> spots =
      MakeSpots((*world)->GetBounds(), *queries);

  std::printf("kind,path,bodies,queries,median_us,p99_us,mean_results\n");
  RunEngine(world->get(), desc->time_step, spots, *per_tick, body_count);
  if (rpc == "false") return 0;
  return RunRpc(spots, static_cast<int32_t>(*bodies), *tick_rate, kWarmupSteps,
                body_count);
}

}  // namespace

ATOLL_BENCH_COMMAND(
    "query",
    "ray cast and overlap cost on a 1 000-body world: engine call and "
    "QueryService round trip (CSV)",
    RunQuery,
    {.usage = "atoll-bench query [--bodies=N] [--queries=N] [--per_tick=N] "
              "[--tick_rate=HZ] [--rpc=false]",
     .flags = kQueryFlags,
     .example = "atoll-bench query --queries=500 --rpc=false"});

}  // namespace atl::bench
