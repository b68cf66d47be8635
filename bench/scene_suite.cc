// atoll-bench scenes (without --ccd): the scene suite, Atoll against Box2D
// 2.4.1 over a size sweep per scene.
//
//   atoll-bench scenes [--scene=a,b] [--size=N | --small] [--steps=N] [--reps=N]
//                      [--engines=atoll,box2d] [--broad_phase=NAME] [--push_speed=V]
//                      [--plot=DIR] [--markdown=FILE] [--from-csv=FILE]
//
// One CSV row per scene, size and engine:
//
//   scene,fixtures,engine,steps,total_ms,p50_ms,p99_ms,peak_rss_mb,contacts,plausible
//
// How each number is taken:
// - Both engines build the world from the same SceneDesc with continuous
//   collision off (seed 000 §8); Atoll steps with its defaults on one
//   thread, Box2D with Step(1/60, 8, 3). Timed waves (rain) are created
//   just before their step, inside the timed step, in both engines.
// - Every (scene, size, engine) run happens in a forked child, so one run's
//   heap cannot serve the next. Times are the child's thread CPU time
//   (CLOCK_THREAD_CPUTIME_ID) per step: total_ms sums them, p50_ms/p99_ms
//   are percentiles over the steps. World construction is not timed.
// - peak_rss_mb: the child returns freed heap to the kernel (malloc_trim),
//   resets its high-water mark (writing 5 to /proc/self/clear_refs), reads
//   VmRSS as the baseline, builds and steps the world, and reports VmHWM
//   minus the baseline: the peak memory this world needed, construction
//   included.
// - contacts: touching contacts after the last step.
// - plausible: "yes", or "no:<reason>" when a body is NaN, outside the
//   scene's bounds, faster than it could get (1.5x the fastest initial or
//   kinematic surface speed plus free fall over the scene's height span:
//   energy was created), or, in the stacking scenes, when a box dropped or
//   slid from its start by more than a pyramid that still stands allows.
//   A fast but wrong result is flagged, never hidden.
// --reps=N runs each measurement N times (interleaving the engines) and
// keeps the run with the median total. --push_speed=V sets Atoll's push
// limit (WorldDef::contact_push_max_velocity, m/s) in every scene: how
// fast bodies created inside each other may be moved apart (n2 and mild_n2
// separate in fewer steps above the default 3). --plot=DIR writes
// DIR/<scene>.png (total time against fixtures, both engines; gnuplot).
// --markdown=FILE writes the per-scene tables with speedups and the suite
// summary.
// --from-csv=FILE re-plots / re-tabulates a saved CSV without running.

#include "scene_suite.h"

#include <malloc.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "atoll/broad_phase_type.h"
#include "atoll/scene.h"
#include "box2d_scene.h"

namespace atl::bench {
namespace {

// The suite: every scene, its sweep (the last size is the largest), and
// whether it belongs to seed 000 §8's thirteen. Stacking scenes get the
// "still standing" check. `--small` runs each scene at `small` instead: the
// sweep's first size, or for the fixed-size v3 scenes a smaller one of the
// same build (what the tests run to check every scene stays plausible).
struct SuiteScene {
  const char* name;
  std::vector<int32_t> sizes;
  bool dissertation;
  bool stacking;
  int32_t small = 0;
};

const std::vector<SuiteScene>& Suite() {
  static const std::vector<SuiteScene> suite = {
      // Seed 000 §8's thirteen, sizes sweeping the fixture count upward.
      {"add_pair", {250, 500, 1000, 2000}, true, false},
      {"multi_fixture", {100, 200, 400, 800}, true, false},
      {"falling_squares", {1000, 2000, 4000, 8000}, true, false},
      {"falling_circles", {1000, 2000, 4000, 8000}, true, false},
      {"slow_explosion", {2000, 4000, 8000, 16000}, true, false},
      {"tumbler", {15, 25, 35, 45}, true, false},
      {"mild_n2", {25, 50, 100, 200}, true, false},
      {"n2", {50, 100, 200, 400}, true, false},
      {"mostly_static_single", {5000, 10000, 20000, 40000}, true, false},
      {"mostly_static", {5000, 10000, 20000, 40000}, true, false},
      {"diagonal", {1000, 2000, 4000, 8000}, true, false},
      {"big_mobile", {9, 10, 11, 12}, true, false},
      {"mixed_static_dynamic", {1000, 2000, 4000, 8000}, true, false},
      // Box2D v3's benchmark set at its fixed sizes (tumbler is above).
      {"large_pyramid", {100}, false, true, 30},
      {"many_pyramids", {400}, false, true, 4},
      {"smash", {9600}, false, false, 400},
      {"joint_grid", {100}, false, false, 20},
      {"rain", {40}, false, false, 2},
  };
  return suite;
}

const SuiteScene* FindSuiteScene(const std::string& name) {
  for (const SuiteScene& s : Suite()) {
    if (name == s.name) return &s;
  }
  return nullptr;
}

double ThreadCpuMs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return 1e3 * static_cast<double>(ts.tv_sec) + 1e-6 * static_cast<double>(ts.tv_nsec);
}

// One kB figure ("VmRSS", "VmHWM") from /proc/self/status; -1 if missing.
long StatusKb(const char* key) {
  std::ifstream in("/proc/self/status");
  const size_t n = std::strlen(key);
  for (std::string line; std::getline(in, line);) {
    if (line.compare(0, n, key) == 0 && line.size() > n && line[n] == ':') {
      return std::stol(line.substr(n + 1));
    }
  }
  return -1;
}

// What a child sends back through the pipe: plain bytes.
struct Measurement {
  double total_ms = 0.0;
  double p50_ms = 0.0;
  double p99_ms = 0.0;
  double peak_rss_mb = 0.0;
  int32_t contacts = 0;
  int32_t ok = 0;
  char plausible[120] = {};
};

// A body's end state, engine-neutral, for the plausibility check.
struct BodyEnd {
  bool dynamic = false;
  float x = 0.0f, y = 0.0f, vx = 0.0f, vy = 0.0f;
};

// Mechanical energy of the dynamic bodies, J: kinetic (linear and about
// the center of mass) plus potential in the scene's gravity.
struct Energy {
  double total = 0.0;
  double kinetic = 0.0;
  double mass = 0.0;
};

void AddBodyEnergy(Energy* e, Vec2 gravity, float mass, float inertia, Vec2 center, Vec2 v, float w) {
  const double kinetic = 0.5 * mass * (v.x * v.x + v.y * v.y) + 0.5 * inertia * w * w;
  e->total += kinetic - mass * (gravity.x * center.x + gravity.y * center.y);
  e->kinetic += kinetic;
  e->mass += mass;
}

Energy AtollEnergy(const World& world, Vec2 gravity) {
  Energy e;
  for (BodyId id : world.GetBodyIds()) {
    const BodyInfo b = world.GetBody(id).value();
    if (b.type != BodyType::kDynamic) continue;
    AddBodyEnergy(&e, gravity, b.mass, b.inertia, b.world_center, b.linear_velocity, b.angular_velocity);
  }
  return e;
}

Energy Box2DEnergy(const b2World& world, Vec2 gravity) {
  Energy e;
  for (const b2Body* b = world.GetBodyList(); b != nullptr; b = b->GetNext()) {
    if (b->GetType() != b2_dynamicBody) continue;
    // GetInertia is about the body origin; move it to the center of mass.
    const b2Vec2 lc = b->GetLocalCenter(), c = b->GetWorldCenter(), v = b->GetLinearVelocity();
    const float inertia = b->GetInertia() - b->GetMass() * (lc.x * lc.x + lc.y * lc.y);
    AddBodyEnergy(&e, gravity, b->GetMass(), inertia, {c.x, c.y}, {v.x, v.y}, b->GetAngularVelocity());
  }
  return e;
}

// What the plausibility check needs from a run besides the end states.
struct EnergyBudget {
  double start = 0.0;    // at the start, plus every wave's at its creation
  double kinetic = 0.0;  // the kinetic part of `start`
  double scale = 0.0;    // the scene's energy scale, for the tolerance
  double end = 0.0;
};

// Heights the scene spans (all bodies, waves included), m, and the energy
// a turning kinematic body can pump into each kg of dynamic mass, J/kg.
void SceneSpans(const SceneDesc& desc, float* height, float* drive_per_kg) {
  float low = 1e30f, high = -1e30f, drive = 0.0f;
  const float g = Length(desc.world.gravity);
  auto visit = [&](const SceneBody& b) {
    low = Min(low, b.def.position.y);
    high = Max(high, b.def.position.y);
    if (b.def.type != BodyType::kKinematic) return;
    float r = 0.0f;
    for (const SceneShape& s : b.shapes) {
      if (s.geometry.type == ShapeType::kPolygon) {
        for (int32_t i = 0; i < s.geometry.polygon.count; ++i) {
          r = Max(r, Length(s.geometry.polygon.vertices[i]));
        }
      } else if (s.geometry.type == ShapeType::kCircle) {
        r = Max(r, Length(s.geometry.circle.center) + s.geometry.circle.radius);
      }
    }
    // A body carried at the surface speed and lifted across the whole body.
    const float v = Length(b.def.linear_velocity) + Abs(b.def.angular_velocity) * r;
    drive = Max(drive, 0.5f * v * v + g * 2.0f * r);
  };
  for (const SceneBody& b : desc.bodies) visit(b);
  for (const SceneWave& w : desc.waves) {
    for (const SceneBody& b : w.bodies) visit(b);
  }
  *height = high - low + 2.0f;
  *drive_per_kg = drive;
}

std::string CheckPlausible(const SceneDesc& desc, const SuiteScene& scene,
                           const std::vector<BodyEnd>& ends, const EnergyBudget& energy) {
  char reason[120];
  for (size_t i = 0; i < ends.size(); ++i) {
    const BodyEnd& e = ends[i];
    if (!std::isfinite(e.x) || !std::isfinite(e.y) || !std::isfinite(e.vx) || !std::isfinite(e.vy)) {
      return "no:nan";
    }
    if (!e.dynamic) continue;
    if (Abs(e.x) > desc.bounds || Abs(e.y) > desc.bounds) {
      std::snprintf(reason, sizeof(reason), "no:out_of_bounds(%.0f;%.0f)", e.x, e.y);
      return reason;
    }
    if (scene.stacking && i < desc.bodies.size()) {
      // A standing pyramid sags a little (more with height); a collapsed
      // one drops its upper boxes by metres.
      const Vec2 p0 = desc.bodies[i].def.position;
      const float tolerance = 0.5f + 0.01f * Abs(p0.y);
      if (p0.y - e.y > tolerance) {
        std::snprintf(reason, sizeof(reason), "no:fell(box_%zu_dropped_%.2f_m)", i, p0.y - e.y);
        return reason;
      }
    }
  }
  // Energy: contacts and joints only remove it; a kinematic body may add
  // some. More than 10 % of the scene's energy scale beyond that is an
  // explosion.
  if (!std::isfinite(energy.end) || energy.end > energy.start + 0.1 * energy.scale) {
    std::snprintf(reason, sizeof(reason), "no:energy(+%.0f%%_of_scale)",
                  100.0 * (energy.end - energy.start) / std::max(1e-9, energy.scale));
    return reason;
  }
  return "yes";
}

double Percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  size_t k = static_cast<size_t>(std::ceil(q * static_cast<double>(v.size())));
  k = std::clamp<size_t>(k, 1, v.size());
  return v[k - 1];
}

// Runs in the child: builds and steps one world, fills `m`.
void Measure(const SceneDesc& desc, const SuiteScene& scene, bool box2d, int64_t steps,
             Measurement* m) {
  malloc_trim(0);
  if (std::FILE* f = std::fopen("/proc/self/clear_refs", "w")) {
    std::fputs("5", f);
    std::fclose(f);
  }
  const long baseline_kb = StatusKb("VmRSS");
  std::vector<double> step_ms(static_cast<size_t>(steps));
  std::vector<BodyEnd> ends;
  const Vec2 gravity = desc.world.gravity;
  EnergyBudget energy;
  double mass = 0.0;
  auto wave_due = [&desc](int64_t step) {
    if (!desc.drives.empty()) return true;  // steered every step
    for (const SceneWave& w : desc.waves) {
      if (w.step == step) return true;
    }
    return false;
  };
  if (box2d) {
    std::unique_ptr<b2World> world = BuildBox2DWorld(desc);
    energy.start = Box2DEnergy(*world, gravity).total;
    energy.kinetic = Box2DEnergy(*world, gravity).kinetic;
    for (int64_t i = 0; i < steps; ++i) {
      double ms = 0.0;
      if (wave_due(i)) {
        // A wave's energy joins the budget; measuring it is not timed.
        const Energy before = Box2DEnergy(*world, gravity);
        const double start = ThreadCpuMs();
        ApplyBox2DWaves(world.get(), desc, i);
        ms = ThreadCpuMs() - start;
        const Energy after = Box2DEnergy(*world, gravity);
        energy.start += after.total - before.total;
        energy.kinetic += after.kinetic - before.kinetic;
      }
      const double start = ThreadCpuMs();
      world->Step(desc.time_step, 8, 3);
      step_ms[static_cast<size_t>(i)] = ms + ThreadCpuMs() - start;
    }
    const Energy end = Box2DEnergy(*world, gravity);
    energy.end = end.total;
    mass = end.mass;
    for (const b2Contact* c = world->GetContactList(); c != nullptr; c = c->GetNext()) {
      if (c->IsTouching()) ++m->contacts;
    }
    // The body list is newest first; the check wants creation order.
    for (const b2Body* b = world->GetBodyList(); b != nullptr; b = b->GetNext()) {
      const b2Vec2 p = b->GetPosition(), v = b->GetLinearVelocity();
      ends.push_back({b->GetType() == b2_dynamicBody, p.x, p.y, v.x, v.y});
    }
    std::reverse(ends.begin(), ends.end());
  } else {
    absl::StatusOr<std::unique_ptr<World>> world = BuildWorld(desc);
    if (!world.ok()) {
      std::snprintf(m->plausible, sizeof(m->plausible), "%s",
                    std::string(world.status().message()).c_str());
      return;
    }
    energy.start = AtollEnergy(**world, gravity).total;
    energy.kinetic = AtollEnergy(**world, gravity).kinetic;
    for (int64_t i = 0; i < steps; ++i) {
      double ms = 0.0;
      if (wave_due(i)) {
        const Energy before = AtollEnergy(**world, gravity);
        const double start = ThreadCpuMs();
        if (!ApplySceneWaves(world->get(), desc, i).ok()) return;
        ms = ThreadCpuMs() - start;
        const Energy after = AtollEnergy(**world, gravity);
        energy.start += after.total - before.total;
        energy.kinetic += after.kinetic - before.kinetic;
      }
      const double start = ThreadCpuMs();
      if (!(*world)->Step(desc.time_step).ok()) return;
      step_ms[static_cast<size_t>(i)] = ms + ThreadCpuMs() - start;
    }
    const Energy end = AtollEnergy(**world, gravity);
    energy.end = end.total;
    mass = end.mass;
    m->contacts = (*world)->GetCounters().touching_contacts;
    for (BodyId id : (*world)->GetBodyIds()) {
      const BodyInfo b = (*world)->GetBody(id).value();
      ends.push_back({b.type == BodyType::kDynamic, b.transform.p.x, b.transform.p.y,
                      b.linear_velocity.x, b.linear_velocity.y});
    }
  }
  const long peak_kb = StatusKb("VmHWM");
  for (double ms : step_ms) m->total_ms += ms;
  m->p50_ms = Percentile(step_ms, 0.50);
  m->p99_ms = Percentile(step_ms, 0.99);
  m->peak_rss_mb = static_cast<double>(peak_kb - baseline_kb) / 1024.0;
  // The scale: every kilogram falling across the scene's height (or
  // pumped by a kinematic body), plus the kinetic energy it started with.
  float height = 0.0f, drive = 0.0f;
  SceneSpans(desc, &height, &drive);
  energy.scale = std::max(mass * (Length(gravity) * height + drive) + energy.kinetic, 1e-6);
  std::snprintf(m->plausible, sizeof(m->plausible), "%s",
                CheckPlausible(desc, scene, ends, energy).c_str());
  m->ok = 1;
}

// Forks, measures in the child, returns what it sent back.
Measurement MeasureInChild(const SceneDesc& desc, const SuiteScene& scene, bool box2d, int64_t steps) {
  Measurement m;
  int fds[2];
  if (pipe(fds) != 0) return m;
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[0]);
    Measurement out;
    Measure(desc, scene, box2d, steps, &out);
    const ssize_t written = write(fds[1], &out, sizeof(out));
    _exit(written == static_cast<ssize_t>(sizeof(out)) ? 0 : 1);
  }
  close(fds[1]);
  if (pid > 0) {
    size_t got = 0;
    char* bytes = reinterpret_cast<char*>(&m);
    while (got < sizeof(m)) {
      const ssize_t n = read(fds[0], bytes + got, sizeof(m) - got);
      if (n <= 0) break;
      got += static_cast<size_t>(n);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (got != sizeof(m)) {
      m = Measurement();
      std::snprintf(m.plausible, sizeof(m.plausible), "child_failed(status_%d)", status);
    }
  }
  close(fds[0]);
  return m;
}

// One CSV row.
struct Row {
  std::string scene;
  int32_t fixtures = 0;
  std::string engine;
  int64_t steps = 0;
  double total_ms = 0.0, p50_ms = 0.0, p99_ms = 0.0, peak_rss_mb = 0.0;
  int32_t contacts = 0;
  std::string plausible;
};

constexpr char kHeader[] = "scene,fixtures,engine,steps,total_ms,p50_ms,p99_ms,peak_rss_mb,contacts,plausible";
constexpr char kAtoll[] = "atoll";
constexpr char kBox2D[] = "box2d-2.4.1";

std::string FormatRow(const Row& r) {
  char buffer[512];
  std::snprintf(buffer, sizeof(buffer), "%s,%d,%s,%lld,%.1f,%.4f,%.4f,%.1f,%d,%s", r.scene.c_str(),
                r.fixtures, r.engine.c_str(), static_cast<long long>(r.steps), r.total_ms, r.p50_ms,
                r.p99_ms, r.peak_rss_mb, r.contacts, r.plausible.c_str());
  return buffer;
}

absl::StatusOr<std::vector<Row>> ReadCsv(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError("cannot read " + path);
  std::vector<Row> rows;
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#' || line.rfind("scene,", 0) == 0) continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) f.push_back(cell);
    if (f.size() != 10) return absl::InvalidArgumentError("bad CSV line: " + line);
    Row r;
    r.scene = f[0];
    r.fixtures = std::stoi(f[1]);
    r.engine = f[2];
    r.steps = std::stoll(f[3]);
    r.total_ms = std::stod(f[4]);
    r.p50_ms = std::stod(f[5]);
    r.p99_ms = std::stod(f[6]);
    r.peak_rss_mb = std::stod(f[7]);
    r.contacts = std::stoi(f[8]);
    r.plausible = f[9];
    rows.push_back(r);
  }
  return rows;
}

// Rows of one scene, paired by fixture count: (atoll, box2d), either may be
// missing.
struct Pair {
  const Row* atoll = nullptr;
  const Row* box2d = nullptr;
};

std::map<int32_t, Pair> PairsOf(const std::vector<Row>& rows, const std::string& scene) {
  std::map<int32_t, Pair> pairs;
  for (const Row& r : rows) {
    if (r.scene != scene) continue;
    if (r.engine == kAtoll) pairs[r.fixtures].atoll = &r;
    if (r.engine == kBox2D) pairs[r.fixtures].box2d = &r;
  }
  return pairs;
}

std::vector<std::string> ScenesIn(const std::vector<Row>& rows) {
  std::vector<std::string> names;
  for (const Row& r : rows) {
    if (std::find(names.begin(), names.end(), r.scene) == names.end()) names.push_back(r.scene);
  }
  return names;
}

// One PNG per scene: total ms against fixtures, both engines.
bool Plot(const std::vector<Row>& rows, const std::string& dir) {
  bool ok = true;
  for (const std::string& scene : ScenesIn(rows)) {
    const std::string data = dir + "/" + scene + ".dat";
    {
      std::ofstream out(data);
      out << "# fixtures atoll_ms box2d_ms\n";
      for (const auto& [fixtures, pair] : PairsOf(rows, scene)) {
        out << fixtures << ' ' << (pair.atoll ? std::to_string(pair.atoll->total_ms) : "NaN") << ' '
            << (pair.box2d ? std::to_string(pair.box2d->total_ms) : "NaN") << '\n';
      }
    }
    const std::string script =
        "set terminal png size 560,380 font ',10'\n"
        "set output '" + dir + "/" + scene + ".png'\n"
        "set title '" + scene + " (" + std::to_string(PairsOf(rows, scene).begin()->second.atoll
                                                         ? PairsOf(rows, scene).begin()->second.atoll->steps
                                                         : 0) +
        " steps, 1 thread, CCD off)' noenhanced\n"
        "set xlabel 'fixtures'\nset ylabel 'total CPU time (ms)'\n"
        "set key top left\nset grid\nset yrange [0:*]\n"
        "plot '" + data + "' using 1:2 with linespoints lw 2 pt 7 title 'Atoll', "
        "'" + data + "' using 1:3 with linespoints lw 2 pt 5 title 'Box2D 2.4.1'\n";
    std::FILE* gp = popen("gnuplot", "w");
    if (gp == nullptr) return false;
    std::fputs(script.c_str(), gp);
    ok = pclose(gp) == 0 && ok;
    std::remove(data.c_str());
  }
  return ok;
}

// "yes" when every row of `engine` in `pairs` is plausible, else the
// first reason with its fixture count.
std::string Verdict(const std::map<int32_t, Pair>& pairs, bool atoll) {
  for (const auto& [fixtures, pair] : pairs) {
    const Row* r = atoll ? pair.atoll : pair.box2d;
    if (r != nullptr && r->plausible != "yes") return r->plausible + "@" + std::to_string(fixtures);
  }
  return "yes";
}

// Markdown: the summary table (one line per scene), then one table per
// scene, then the suite figures.
std::string Markdown(const std::vector<Row>& rows) {
  std::string md;
  char line[512];
  md += "| scene | seed 000 | fixtures | Atoll ms | Box2D ms | speedup | lowest speedup in sweep | "
        "max p99/p50 Atoll | max p99/p50 Box2D | peak MB Atoll / Box2D | plausible Atoll | plausible Box2D |\n";
  md += "|---|:---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n";
  for (const std::string& scene : ScenesIn(rows)) {
    const SuiteScene* suite = FindSuiteScene(scene);
    const std::map<int32_t, Pair> pairs = PairsOf(rows, scene);
    if (pairs.empty()) continue;
    double lowest = 1e30, jitter_a = 0.0, jitter_b = 0.0;
    for (const auto& [fixtures, pair] : pairs) {
      if (pair.atoll && pair.box2d && pair.atoll->total_ms > 0.0) {
        lowest = std::min(lowest, pair.box2d->total_ms / pair.atoll->total_ms);
      }
      if (pair.atoll && pair.atoll->p50_ms > 0.0) jitter_a = std::max(jitter_a, pair.atoll->p99_ms / pair.atoll->p50_ms);
      if (pair.box2d && pair.box2d->p50_ms > 0.0) jitter_b = std::max(jitter_b, pair.box2d->p99_ms / pair.box2d->p50_ms);
    }
    const Pair& last = pairs.rbegin()->second;
    if (last.atoll == nullptr || last.box2d == nullptr) continue;
    std::snprintf(line, sizeof(line),
                  "| %s | %s | %d | %.1f | %.1f | **%.2f×** | %.2f× | %.1f | %.1f | %.1f / %.1f | %s | %s |\n",
                  scene.c_str(), suite != nullptr && suite->dissertation ? "yes" : "", pairs.rbegin()->first,
                  last.atoll->total_ms, last.box2d->total_ms,
                  last.atoll->total_ms > 0.0 ? last.box2d->total_ms / last.atoll->total_ms : 0.0, lowest,
                  jitter_a, jitter_b, last.atoll->peak_rss_mb, last.box2d->peak_rss_mb,
                  Verdict(pairs, true).c_str(), Verdict(pairs, false).c_str());
    md += line;
  }
  md += "\n";
  double log_sum = 0.0;
  int32_t geo_count = 0;
  std::string slower;
  for (const std::string& scene : ScenesIn(rows)) {
    const SuiteScene* suite = FindSuiteScene(scene);
    md += "#### " + scene + "\n\n";
    md += "| fixtures | engine | total ms | speedup | p50 ms | p99 ms | p99/p50 | peak MB | contacts | plausible |\n";
    md += "|---:|---|---:|---:|---:|---:|---:|---:|---:|---|\n";
    const std::map<int32_t, Pair> pairs = PairsOf(rows, scene);
    for (const auto& [fixtures, pair] : pairs) {
      for (const Row* r : {pair.atoll, pair.box2d}) {
        if (r == nullptr) continue;
        std::string speedup = "";
        if (r == pair.atoll && pair.box2d != nullptr && r->total_ms > 0.0) {
          std::snprintf(line, sizeof(line), "**%.2f×**", pair.box2d->total_ms / r->total_ms);
          speedup = line;
          if (pair.box2d->total_ms < r->total_ms) {
            slower += " " + scene + "@" + std::to_string(fixtures);
          }
        }
        std::snprintf(line, sizeof(line), "| %d | %s | %.1f | %s | %.3f | %.3f | %.2f | %.1f | %d | %s |\n",
                      fixtures, r->engine.c_str(), r->total_ms, speedup.c_str(), r->p50_ms, r->p99_ms,
                      r->p50_ms > 0.0 ? r->p99_ms / r->p50_ms : 0.0, r->peak_rss_mb, r->contacts,
                      r->plausible.c_str());
        md += line;
      }
    }
    md += "\n";
    const auto last = pairs.rbegin();
    if (suite != nullptr && suite->dissertation && last != pairs.rend() && last->second.atoll &&
        last->second.box2d && last->second.atoll->total_ms > 0.0) {
      log_sum += std::log(last->second.box2d->total_ms / last->second.atoll->total_ms);
      ++geo_count;
    }
  }
  if (geo_count > 0) {
    std::snprintf(line, sizeof(line),
                  "Geometric-mean speedup over the %d seed 000 scenes at their largest size: "
                  "**%.2f×**.\n\n",
                  geo_count, std::exp(log_sum / geo_count));
    md += line;
  }
  md += "Scene sizes where Atoll was slower than Box2D 2.4.1:" + (slower.empty() ? " none" : slower) + ".\n";
  return md;
}

}  // namespace

int RunSceneSuite(const Args& args) {
  std::vector<Row> rows;
  const std::string from_csv = args.Get("from-csv", "");
  if (!from_csv.empty()) {
    absl::StatusOr<std::vector<Row>> read = ReadCsv(from_csv);
    if (!read.ok()) {
      std::fprintf(stderr, "atoll-bench scenes: %s\n", std::string(read.status().message()).c_str());
      return 2;
    }
    rows = *std::move(read);
  } else {
    std::vector<std::string> all;
    for (const SuiteScene& s : Suite()) all.push_back(s.name);
    const std::vector<std::string> names = args.GetList("scene", all);
    const std::vector<std::string> engines = args.GetList("engines", {"atoll", "box2d"});
    auto size = args.GetInt("size", 0);
    auto steps = args.GetInt("steps", 0);
    auto reps = args.GetInt("reps", 1);
    if (!size.ok() || !steps.ok() || !reps.ok() || *size < 0 || *steps < 0 || *reps <= 0) {
      std::fprintf(stderr, "atoll-bench scenes: --size, --steps >= 0 and --reps > 0 must be integers\n");
      return 2;
    }
    const bool small = args.Has("small");
    if (small && *size > 0) {
      std::fprintf(stderr, "atoll-bench scenes: --small and --size exclude each other\n");
      return 2;
    }
    for (const std::string& e : engines) {
      if (e != "atoll" && e != "box2d") {
        std::fprintf(stderr, "atoll-bench scenes: unknown engine '%s'\n", e.c_str());
        return 2;
      }
    }
    std::optional<BroadPhaseType> broad_phase;
    if (const std::string name = args.Get("broad_phase", ""); !name.empty()) {
      absl::StatusOr<BroadPhaseType> parsed = ParseBroadPhaseType(name);
      if (!parsed.ok()) {
        std::fprintf(stderr, "atoll-bench scenes: --broad_phase: %s\n",
                     std::string(parsed.status().message()).c_str());
        return 2;
      }
      broad_phase = *parsed;
    }
    std::optional<float> push_speed;
    if (const std::string text = args.Get("push_speed", ""); !text.empty()) {
      float speed = 0.0f;
      if (!absl::SimpleAtof(text, &speed) || !(speed > 0.0f) || !std::isfinite(speed)) {
        std::fprintf(stderr, "atoll-bench scenes: --push_speed takes a speed > 0 in m/s\n");
        return 2;
      }
      push_speed = speed;
    }
    std::printf("%s\n", kHeader);
    std::fflush(stdout);
    for (const std::string& name : names) {
      const SuiteScene* scene = FindSuiteScene(name);
      // Scenes outside the suite run at their default size, checked
      // without the stacking test.
      const SuiteScene fallback{"", {0}, false, false};
      if (scene == nullptr) scene = &fallback;
      std::vector<int32_t> sizes = scene->sizes;
      if (*size > 0) sizes = {static_cast<int32_t>(*size)};
      if (small) sizes = {scene->small > 0 ? scene->small : scene->sizes.front()};
      for (int32_t n : sizes) {
        absl::StatusOr<SceneDesc> desc = MakeScene(name, {.size = n});
        if (!desc.ok()) {
          std::fprintf(stderr, "atoll-bench scenes: %s\n", std::string(desc.status().message()).c_str());
          return 2;
        }
        desc->world.enable_continuous = false;
        if (broad_phase.has_value()) desc->world.broad_phase = *broad_phase;
        if (push_speed.has_value()) desc->world.contact_push_max_velocity = *push_speed;
        const int64_t count = *steps > 0 ? *steps : desc->steps;
        std::vector<std::vector<Measurement>> runs(engines.size());
        for (int64_t rep = 0; rep < *reps; ++rep) {
          for (size_t e = 0; e < engines.size(); ++e) {
            runs[e].push_back(MeasureInChild(*desc, *scene, engines[e] == "box2d", count));
          }
        }
        for (size_t e = 0; e < engines.size(); ++e) {
          std::sort(runs[e].begin(), runs[e].end(),
                    [](const Measurement& a, const Measurement& b) { return a.total_ms < b.total_ms; });
          const Measurement& m = runs[e][runs[e].size() / 2];
          Row r{name, CountSceneShapes(*desc), engines[e] == "box2d" ? kBox2D : kAtoll, count,
                m.total_ms, m.p50_ms, m.p99_ms, m.peak_rss_mb, m.contacts, m.plausible};
          if (!m.ok) r.plausible = std::string("error:") + m.plausible;
          std::printf("%s\n", FormatRow(r).c_str());
          std::fflush(stdout);
          rows.push_back(r);
        }
        if (engines.size() == 2 && rows[rows.size() - 1].total_ms > 0.0) {
          std::fprintf(stderr, "# %s %d fixtures: atoll %.1f ms, box2d %.1f ms, speedup %.2fx\n",
                       name.c_str(), rows.back().fixtures, rows[rows.size() - 2].total_ms,
                       rows.back().total_ms, rows.back().total_ms / rows[rows.size() - 2].total_ms);
        }
      }
    }
  }
  const std::string plot = args.Get("plot", "");
  if (!plot.empty() && !Plot(rows, plot)) {
    std::fprintf(stderr, "atoll-bench scenes: gnuplot failed writing %s\n", plot.c_str());
    return 1;
  }
  const std::string markdown = args.Get("markdown", "");
  if (!markdown.empty()) std::ofstream(markdown) << Markdown(rows);
  return 0;
}

}  // namespace atl::bench
