// atoll-bench islands: island management per step, persistent islands
// (seed 002) against rebuilding islands by depth-first search every step
// (what Box2D 2.4 does), on the same world in the same run.
//
// CSV: scene,bodies,persistent_ms_per_step,dfs_ms_per_step,ratio
//
// The first --warmup steps (default 60, one second) are stepped but not
// averaged, for either contender: that is when a new scene's one-body
// islands merge into their piles, a one-time cost of building the world.
// --sleep=off keeps every body awake (seed 002 compares island building for
// awake piles; with sleep on, both contenders skip sleeping bodies).

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "args.h"
#include "atoll/scene.h"
#include "command.h"
#include "world/world_state.h"

namespace atl::bench {
namespace {

// Box2D 2.4's island search, on Atoll's records: clear every mark, seed
// from each awake dynamic body, walk touching non-sensor contacts, never
// through static bodies; gather each island's bodies and contacts.
class DfsIslands {
 public:
  int32_t Build(const WorldState& w) {
    body_mark_.assign(w.bodies.size(), 0);
    contact_mark_.assign(w.contacts.size(), 0);
    int32_t islands = 0;
    for (int32_t seed = 0; seed < w.body_ids.Capacity(); ++seed) {
      if (!w.body_ids.IsAlive(seed) || body_mark_[seed]) continue;
      const Body& s = w.bodies[seed];
      if (s.type != BodyType::kDynamic || !s.awake || !s.enabled) continue;
      island_bodies_.clear();
      island_contacts_.clear();
      stack_.clear();
      stack_.push_back(seed);
      body_mark_[seed] = 1;
      while (!stack_.empty()) {
        const int32_t b = stack_.back();
        stack_.pop_back();
        island_bodies_.push_back(b);
        if (w.bodies[b].type == BodyType::kStatic) continue;
        for (int32_t c : w.bodies[b].contacts) {
          if (contact_mark_[c]) continue;
          const Contact& contact = w.contacts[c];
          if ((contact.flags & kContactTouching) == 0 || (contact.flags & kContactSensor) != 0) {
            continue;
          }
          contact_mark_[c] = 1;
          island_contacts_.push_back(c);
          const int32_t other = contact.body_a == b ? contact.body_b : contact.body_a;
          if (body_mark_[other]) continue;
          body_mark_[other] = 1;
          stack_.push_back(other);
        }
      }
      // Static bodies may join many islands: unmark them, as Box2D does.
      for (int32_t b : island_bodies_) {
        if (w.bodies[b].type == BodyType::kStatic) body_mark_[b] = 0;
      }
      ++islands;
    }
    return islands;
  }

 private:
  std::vector<uint8_t> body_mark_;
  std::vector<uint8_t> contact_mark_;
  std::vector<int32_t> stack_;
  std::vector<int32_t> island_bodies_;
  std::vector<int32_t> island_contacts_;
};

struct Case {
  const char* label;
  const char* scene;
  int32_t size;
};

// The flags of atoll-bench islands: its help, and what it parses.
constexpr Flag kIslandsFlags[] = {
    {"steps", "300", "timed steps per scene"},
    {"warmup", "60", "steps stepped before timing (new piles merge their islands then)"},
    {"sleep", "on", "off keeps every body awake"},
};

int RunIslands(const std::vector<std::string>& raw) {
  auto args = Args::Parse(raw, FlagNames(kIslandsFlags));
  if (!args.ok()) {
    std::fprintf(stderr, "atoll-bench islands: %s\n", std::string(args.status().message()).c_str());
    return 2;
  }
  auto steps = args->GetInt("steps", 300);
  auto warmup = args->GetInt("warmup", 60);
  if (!steps.ok() || *steps <= 0 || !warmup.ok() || *warmup < 0) {
    std::fprintf(stderr, "atoll-bench islands: --steps > 0 and --warmup >= 0 wanted\n");
    return 2;
  }
  // Seed 002's scenes: 182 pyramids of base 10 (10 010 bodies) and a
  // 2 000-box tumbler (45 x 45 = 2 025).
  const Case cases[] = {{"pyramids", "many_pyramids", 182}, {"tumbler", "tumbler", 45}};
  std::printf("scene,bodies,persistent_ms_per_step,dfs_ms_per_step,ratio\n");
  for (const Case& c : cases) {
    auto desc = MakeScene(c.scene, {.size = c.size});
    desc->world.enable_sleep = args->Get("sleep", "on") != "off";
    auto world = BuildWorld(*desc);
    if (!world.ok()) {
      std::fprintf(stderr, "%s\n", std::string(world.status().message()).c_str());
      return 1;
    }
    DfsIslands dfs;
    double persistent_ms = 0.0, dfs_ms = 0.0;
    int64_t dfs_islands = 0;
    for (int64_t i = 0; i < *warmup; ++i) {
      if (!(*world)->Step(desc->time_step).ok()) return 1;
    }
    for (int64_t i = 0; i < *steps; ++i) {
      if (!(*world)->Step(desc->time_step).ok()) return 1;
      persistent_ms += (*world)->profile().islands;
      const auto t0 = std::chrono::steady_clock::now();
      dfs_islands += dfs.Build((*world)->state());
      dfs_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    }
    const double n = static_cast<double>(*steps);
    std::printf("%s,%d,%.5f,%.5f,%.1f\n", c.label, (*world)->GetCounters().bodies,
                persistent_ms / n, dfs_ms / n, persistent_ms > 0.0 ? dfs_ms / persistent_ms : 0.0);
    std::fflush(stdout);
    // Keep the DFS result alive so it cannot be optimized away.
    if (dfs_islands < 0) std::printf("#\n");
  }
  return 0;
}

}  // namespace

ATOLL_BENCH_COMMAND("islands", "persistent islands vs per-step DFS rebuild (CSV)", RunIslands,
                    {.usage = "atoll-bench islands [--steps=N] [--warmup=N] [--sleep=on|off]",
                     .flags = kIslandsFlags,
                     .example = "atoll-bench islands --steps=600 --sleep=off"});

}  // namespace atl::bench
