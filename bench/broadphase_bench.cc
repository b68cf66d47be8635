// atoll-bench broadphase — broad-phase strategies against each other and
// against Box2D 2.4.1's b2BroadPhase on the scenes of paper 001 (see
// broadphase_scenarios.h).
//
//   atoll-bench broadphase [--scenario=free_fall|brownian|gravity]
//       [--sizes=equal|assorted] [--objects=N,N,...] [--frames=N]
//       [--strategies=batch_bvh,kd_sap,dynamic_tree,brute_force,box2d]
//       [--max-frame-ms=MS] [--plot=FILE.png]
//   atoll-bench broadphase --from-csv=A.csv,B.csv --plot=FILE.png
//       (re-plots earlier results; runs nothing)
//
// CSV on stdout: scenario,sizes,objects,strategy,ms_per_frame,pairs.
// ms_per_frame is the mean over the timed frames of MoveProxy for every
// object that moved plus UpdatePairs; motion generation and the first
// frame (the initial build) are not timed. Time is the thread's CPU time
// (CLOCK_THREAD_CPUTIME_ID): on a machine shared with other jobs it still
// measures the work, not the waiting; on an idle machine it equals wall
// time for this single-threaded code. pairs is the mean number of
// overlapping pairs per frame. Box2D reports only the new pairs of proxies
// that left their fat boxes, so its exact count comes from replaying its
// output into a pair cache the way b2ContactManager does (untimed, which
// favors Box2D) and counting the pairs whose real boxes overlap; its raw
// count goes to stderr. Every contender's per-frame pair lists are hashed
// and compared with the first contender's (brute force where it runs).

#include <box2d/b2_broad_phase.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "args.h"
#include "atoll/broad_phase_type.h"
#include "broad_phase/broad_phase.h"
#include "broadphase_scenarios.h"
#include "command.h"

namespace atl::bench {
namespace {

// Nanoseconds of CPU time consumed by the calling thread.
int64_t ThreadCpuNanos() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// Brute force is O(n^2): 20k objects already take ~0.5 s a frame.
constexpr int32_t kBruteForceMaxObjects = 20000;

uint64_t HashPairs(uint64_t hash, const int32_t* ab, size_t count) {
  // FNV-1a over the pair ids, order-sensitive.
  for (size_t i = 0; i < 2 * count; ++i) {
    hash ^= static_cast<uint32_t>(ab[i]);
    hash *= 0x100000001b3ull;
  }
  return hash;
}

// One broad phase under test, driven through the same calls.
class Contender {
 public:
  virtual ~Contender() = default;
  virtual void Create(const std::vector<AABB>& boxes) = 0;
  virtual void Move(int32_t index, const AABB& box, Vec2 displacement) = 0;
  virtual void Update() = 0;
  // Untimed bookkeeping after Update: this frame's exact pair count and a
  // hash of the canonical pair list.
  virtual void Account(int64_t* pairs, uint64_t* hash) = 0;
  virtual std::string Note() const { return ""; }
};

class AtollContender final : public Contender {
 public:
  explicit AtollContender(BroadPhaseType type) : phase_(MakeBroadPhase(type)) {}
  void Create(const std::vector<AABB>& boxes) override {
    ProxyData data;
    for (size_t i = 0; i < boxes.size(); ++i) {
      data.body_id = static_cast<uint32_t>(i);
      phase_->CreateProxy(boxes[i], data);
    }
  }
  void Move(int32_t index, const AABB& box, Vec2) override {
    phase_->MoveProxy(index, box);
  }
  void Update() override { phase_->UpdatePairs(&pairs_); }
  void Account(int64_t* pairs, uint64_t* hash) override {
    *pairs += static_cast<int64_t>(pairs_.size());
    static_assert(sizeof(ProxyPair) == 2 * sizeof(int32_t));
    *hash = HashPairs(*hash, reinterpret_cast<const int32_t*>(pairs_.data()),
                      pairs_.size());
  }

 private:
  std::unique_ptr<BroadPhase> phase_;
  std::vector<ProxyPair> pairs_;
};

class Box2dContender final : public Contender {
 public:
  void Create(const std::vector<AABB>& boxes) override {
    proxies_.resize(boxes.size());
    tight_ = boxes;
    for (size_t i = 0; i < boxes.size(); ++i) {
      proxies_[i] =
          broad_phase_.CreateProxy(ToB2(boxes[i]), reinterpret_cast<void*>(i));
    }
  }
  void Move(int32_t index, const AABB& box, Vec2 d) override {
    broad_phase_.MoveProxy(proxies_[index], ToB2(box), b2Vec2(d.x, d.y));
    tight_[index] = box;
  }
  void Update() override {
    raw_.clear();
    broad_phase_.UpdatePairs(this);
  }
  // b2BroadPhase's callback.
  void AddPair(void* a, void* b) {
    const int32_t x = static_cast<int32_t>(reinterpret_cast<intptr_t>(a));
    const int32_t y = static_cast<int32_t>(reinterpret_cast<intptr_t>(b));
    raw_.push_back(
        x < y ? (static_cast<uint64_t>(x) << 32 | static_cast<uint32_t>(y))
              : (static_cast<uint64_t>(y) << 32 | static_cast<uint32_t>(x)));
  }
  void Account(int64_t* pairs, uint64_t* hash) override {
    // The contact manager's view: earlier pairs live on while their fat
    // boxes overlap; new ones are merged in.
    raw_total_ += static_cast<int64_t>(raw_.size());
    std::sort(raw_.begin(), raw_.end());
    raw_.erase(std::unique(raw_.begin(), raw_.end()), raw_.end());
    merged_.clear();
    std::merge(cache_.begin(), cache_.end(), raw_.begin(), raw_.end(),
               std::back_inserter(merged_));
    merged_.erase(std::unique(merged_.begin(), merged_.end()), merged_.end());
    cache_.clear();
    exact_.clear();
    for (uint64_t key : merged_) {
      const int32_t a = static_cast<int32_t>(key >> 32);
      const int32_t b = static_cast<int32_t>(key & 0xffffffffu);
      if (!b2TestOverlap(broad_phase_.GetFatAABB(proxies_[a]),
                         broad_phase_.GetFatAABB(proxies_[b]))) {
        continue;
      }
      cache_.push_back(key);
      if (Overlaps(tight_[a], tight_[b])) {
        exact_.push_back(a);
        exact_.push_back(b);
      }
    }
    *pairs += static_cast<int64_t>(exact_.size() / 2);
    *hash = HashPairs(*hash, exact_.data(), exact_.size() / 2);
    ++frames_;
  }
  std::string Note() const override {
    return absl::StrCat(
        "box2d raw pairs reported per frame (new pairs of "
        "proxies that left their fat boxes): ",
        frames_ > 0 ? raw_total_ / frames_ : 0,
        "; fat-box pair cache size: ", cache_.size());
  }

 private:
  static b2AABB ToB2(const AABB& box) {
    b2AABB out;
    out.lowerBound.Set(box.lower.x, box.lower.y);
    out.upperBound.Set(box.upper.x, box.upper.y);
    return out;
  }
  b2BroadPhase broad_phase_;
  std::vector<int32_t> proxies_;
  std::vector<AABB> tight_;
  std::vector<uint64_t> raw_;
  std::vector<uint64_t> cache_;
  std::vector<uint64_t> merged_;
  std::vector<int32_t> exact_;
  int64_t raw_total_ = 0;
  int64_t frames_ = 0;
};

std::unique_ptr<Contender> MakeContender(const std::string& name) {
  if (name == "box2d") return std::make_unique<Box2dContender>();
  return std::make_unique<AtollContender>(*ParseBroadPhaseType(name));
}

struct Result {
  double ms_per_frame = 0.0;
  int64_t pairs_per_frame = 0;
  uint64_t hash = 0;
};

Result Run(const std::string& name, ScenarioKind kind, SizeMix sizes,
           int32_t objects, int32_t frames) {
  const uint64_t seed = 0x5eed0000ull + static_cast<uint64_t>(objects) * 31 +
                        static_cast<uint64_t>(kind) * 7 +
                        static_cast<uint64_t>(sizes);
  Scenario scenario(kind, sizes, objects, seed);
  std::unique_ptr<Contender> contender = MakeContender(name);
  contender->Create(scenario.boxes());
  int64_t pairs = 0;
  uint64_t hash = 0xcbf29ce484222325ull;
  // Frame 0: the initial build, not timed.
  contender->Update();
  int64_t ignored_pairs = 0;
  contender->Account(&ignored_pairs, &hash);
  int64_t total_ns = 0;
  for (int32_t frame = 1; frame <= frames; ++frame) {
    scenario.Advance();
    const std::vector<AABB>& boxes = scenario.boxes();
    const int64_t start = ThreadCpuNanos();
    for (int32_t i : scenario.moved()) {
      contender->Move(i, boxes[i], scenario.displacement(i));
    }
    contender->Update();
    total_ns += ThreadCpuNanos() - start;
    contender->Account(&pairs, &hash);
  }
  const std::string note = contender->Note();
  if (!note.empty()) std::fprintf(stderr, "  %s\n", note.c_str());
  Result result;
  result.ms_per_frame = static_cast<double>(total_ns) * 1e-6 / frames;
  result.pairs_per_frame = pairs / frames;
  result.hash = hash;
  return result;
}

struct Row {
  std::string scenario;
  std::string sizes;
  int32_t objects;
  std::string strategy;
  double ms;
};

// Writes one panel per (scenario, sizes): ms per frame against objects,
// log-log, a line per strategy.
int WritePlot(const std::string& png, const std::vector<Row>& rows) {
  std::vector<std::pair<std::string, std::string>> panels;
  std::vector<std::string> strategies;
  for (const Row& row : rows) {
    const auto panel = std::make_pair(row.scenario, row.sizes);
    if (std::find(panels.begin(), panels.end(), panel) == panels.end()) {
      panels.push_back(panel);
    }
    if (std::find(strategies.begin(), strategies.end(), row.strategy) ==
        strategies.end()) {
      strategies.push_back(row.strategy);
    }
  }
  const std::string data = png + ".dat";
  FILE* out = std::fopen(data.c_str(), "w");
  if (out == nullptr) {
    std::fprintf(stderr, "broadphase: cannot write %s\n", data.c_str());
    return 1;
  }
  // One gnuplot data block (separated by two blank lines) per panel and
  // strategy, addressed with `index`.
  std::map<std::pair<size_t, size_t>, int> index;
  int block = 0;
  for (size_t p = 0; p < panels.size(); ++p) {
    for (size_t s = 0; s < strategies.size(); ++s) {
      std::fprintf(out, "# %s %s %s\n", panels[p].first.c_str(),
                   panels[p].second.c_str(), strategies[s].c_str());
      bool any = false;
      for (const Row& row : rows) {
        if (row.scenario == panels[p].first && row.sizes == panels[p].second &&
            row.strategy == strategies[s]) {
          std::fprintf(out, "%d %.6f\n", row.objects, row.ms);
          any = true;
        }
      }
      if (!any) std::fprintf(out, "nan nan\n");
      std::fprintf(out, "\n\n");
      index[{p, s}] = block++;
    }
  }
  std::fclose(out);
  const std::string script = png + ".gp";
  out = std::fopen(script.c_str(), "w");
  if (out == nullptr) return 1;
  const size_t columns = std::min<size_t>(3, panels.size());
  const size_t plot_rows = (panels.size() + columns - 1) / columns;
  std::fprintf(
      out,
      "set terminal pngcairo size %zu,%zu font 'sans,10'\n"
      "set output '%s'\n"
      "set multiplot layout %zu,%zu title 'atoll-bench broadphase: "
      "ms per frame (1 thread)'\n"
      "set termoption noenhanced\nset logscale xy\nset grid\nset key top left\n"
      "set xlabel 'objects'\nset ylabel 'ms per frame'\n",
      560 * columns, 420 * plot_rows, png.c_str(), plot_rows, columns);
  for (size_t p = 0; p < panels.size(); ++p) {
    std::fprintf(out, "set title '%s, %s sizes'\nplot ",
                 panels[p].first.c_str(), panels[p].second.c_str());
    for (size_t s = 0; s < strategies.size(); ++s) {
      std::fprintf(out, "%s'%s' index %d using 1:2 with linespoints title '%s'",
                   s == 0 ? "" : ", ", data.c_str(), index[{p, s}],
                   strategies[s].c_str());
    }
    std::fprintf(out, "\n");
  }
  std::fprintf(out, "unset multiplot\n");
  std::fclose(out);
  const std::string command = "gnuplot '" + script + "'";
  if (std::system(command.c_str()) != 0) {
    std::fprintf(stderr,
                 "broadphase: gnuplot failed (apt-get install -y gnuplot-nox); "
                 "script left in %s\n",
                 script.c_str());
    return 1;
  }
  std::remove(script.c_str());
  std::remove(data.c_str());
  std::fprintf(stderr, "broadphase: wrote %s\n", png.c_str());
  return 0;
}

// Appends the rows of a CSV written by this command (header skipped).
bool ReadCsv(const std::string& path, std::vector<Row>* rows) {
  FILE* in = std::fopen(path.c_str(), "r");
  if (in == nullptr) {
    std::fprintf(stderr, "broadphase: cannot read %s\n", path.c_str());
    return false;
  }
  char line[512];
  while (std::fgets(line, sizeof(line), in) != nullptr) {
    char scenario[64];
    char sizes[64];
    char strategy[64];
    int objects = 0;
    double ms = 0.0;
    long long pairs = 0;
    if (std::sscanf(line, "%63[^,],%63[^,],%d,%63[^,],%lf,%lld", scenario,
                    sizes, &objects, strategy, &ms, &pairs) == 6) {
      rows->push_back({scenario, sizes, objects, strategy, ms});
    }
  }
  std::fclose(in);
  return true;
}

// The flags of atoll-bench broadphase: its help, and what it parses.
constexpr Flag kBroadPhaseFlags[] = {
    {"scenario", "free_fall,brownian,gravity", "comma-separated scenarios"},
    {"sizes", "equal,assorted", "comma-separated size mixes"},
    {"objects", "1000,2000,...,1024000", "comma-separated object counts (doubling by default)"},
    {"frames", "100", "frames per run"},
    {"strategies", "brute_force,batch_bvh,kd_sap,dynamic_tree,box2d",
     "comma-separated contenders; the first one's pairs are the reference"},
    {"max-frame-ms", "3000",
     "skip a contender at sizes where its frame is predicted to take longer"},
    {"plot", "", "write a PNG of the results here (gnuplot)"},
    {"from-csv", "", "comma-separated CSVs of earlier runs to re-plot with --plot; runs nothing"},
};

int RunBroadPhaseBench(const std::vector<std::string>& raw_args) {
  const auto args = Args::Parse(raw_args, FlagNames(kBroadPhaseFlags));
  if (!args.ok()) {
    std::fprintf(stderr, "broadphase: %s\n", args.status().ToString().c_str());
    return 2;
  }
  if (args->Has("from-csv")) {
    if (!args->Has("plot")) {
      std::fprintf(stderr, "broadphase: --from-csv needs --plot\n");
      return 2;
    }
    std::vector<Row> rows;
    for (const std::string& path : args->GetList("from-csv", {})) {
      if (!ReadCsv(path, &rows)) return 1;
    }
    return WritePlot(args->Get("plot", ""), rows);
  }
  std::vector<ScenarioKind> kinds;
  for (const std::string& name :
       args->GetList("scenario", {"free_fall", "brownian", "gravity"})) {
    if (name == "free_fall") {
      kinds.push_back(ScenarioKind::kFreeFall);
    } else if (name == "brownian") {
      kinds.push_back(ScenarioKind::kBrownian);
    } else if (name == "gravity") {
      kinds.push_back(ScenarioKind::kGravity);
    } else {
      std::fprintf(stderr, "broadphase: unknown --scenario=%s\n", name.c_str());
      return 2;
    }
  }
  std::vector<SizeMix> mixes;
  for (const std::string& name :
       args->GetList("sizes", {"equal", "assorted"})) {
    if (name == "equal") {
      mixes.push_back(SizeMix::kEqual);
    } else if (name == "assorted") {
      mixes.push_back(SizeMix::kAssorted);
    } else {
      std::fprintf(stderr, "broadphase: unknown --sizes=%s\n", name.c_str());
      return 2;
    }
  }
  std::vector<int64_t> default_objects;
  for (int64_t n = 1000; n <= 1024000; n *= 2) default_objects.push_back(n);
  const auto objects = args->GetIntList("objects", default_objects);
  const auto frames = args->GetInt("frames", 100);
  const auto max_frame_ms = args->GetInt("max-frame-ms", 3000);
  if (!objects.ok() || !frames.ok() || !max_frame_ms.ok()) {
    std::fprintf(stderr, "broadphase: bad integer flag\n");
    return 2;
  }
  const std::vector<std::string> strategies = args->GetList(
      "strategies",
      {"brute_force", "batch_bvh", "kd_sap", "dynamic_tree", "box2d"});
  for (const std::string& name : strategies) {
    if (name != "box2d" && !ParseBroadPhaseType(name).ok()) {
      std::fprintf(stderr, "broadphase: unknown strategy '%s'\n", name.c_str());
      return 2;
    }
  }
  for (int64_t n : *objects) {
    if (n < 1 || n > 100000000) {
      std::fprintf(stderr, "broadphase: --objects out of range\n");
      return 2;
    }
  }

  std::printf("scenario,sizes,objects,strategy,ms_per_frame,pairs\n");
  std::fflush(stdout);
  std::vector<Row> rows;
  for (ScenarioKind kind : kinds) {
    for (SizeMix sizes : mixes) {
      // Per strategy, the last size it ran at and its time there, to skip
      // sizes whose frames would take too long.
      std::map<std::string, std::pair<int64_t, double>> last;
      for (int64_t n64 : *objects) {
        const int32_t n = static_cast<int32_t>(n64);
        bool have_reference = false;
        std::string reference;
        Result reference_result;
        for (const std::string& name : strategies) {
          if (name == "brute_force" && n > kBruteForceMaxObjects) {
            std::fprintf(stderr,
                         "broadphase: skip brute_force at %d objects (O(n^2), "
                         "limit %d)\n",
                         n, kBruteForceMaxObjects);
            continue;
          }
          const auto it = last.find(name);
          if (it != last.end()) {
            // Assume n log n growth from the last measured size.
            const double ratio = static_cast<double>(n) / it->second.first;
            const double predicted =
                it->second.second * ratio * std::log2(static_cast<double>(n)) /
                std::log2(static_cast<double>(it->second.first));
            if (predicted > static_cast<double>(*max_frame_ms)) {
              std::fprintf(stderr,
                           "broadphase: skip %s at %d objects (predicted %.0f "
                           "ms per frame > --max-frame-ms=%lld)\n",
                           name.c_str(), n, predicted,
                           static_cast<long long>(*max_frame_ms));
              continue;
            }
          }
          std::fprintf(stderr, "broadphase: %s %s %d objects: %s ...\n",
                       ScenarioName(kind), SizeMixName(sizes), n, name.c_str());
          const Result result =
              Run(name, kind, sizes, n, static_cast<int32_t>(*frames));
          last[name] = {n, result.ms_per_frame};
          if (!have_reference) {
            have_reference = true;
            reference = name;
            reference_result = result;
          } else if (result.hash != reference_result.hash ||
                     result.pairs_per_frame !=
                         reference_result.pairs_per_frame) {
            std::fprintf(
                stderr,
                "broadphase: WARNING %s pairs differ from %s "
                "(%lld vs %lld per frame)\n",
                name.c_str(), reference.c_str(),
                static_cast<long long>(result.pairs_per_frame),
                static_cast<long long>(reference_result.pairs_per_frame));
          } else {
            std::fprintf(stderr, "  pairs identical to %s\n",
                         reference.c_str());
          }
          std::printf("%s,%s,%d,%s,%.4f,%lld\n", ScenarioName(kind),
                      SizeMixName(sizes), n, name.c_str(), result.ms_per_frame,
                      static_cast<long long>(result.pairs_per_frame));
          std::fflush(stdout);
          rows.push_back({ScenarioName(kind), SizeMixName(sizes), n, name,
                          result.ms_per_frame});
        }
      }
    }
  }
  if (args->Has("plot")) return WritePlot(args->Get("plot", ""), rows);
  return 0;
}

}  // namespace

ATOLL_BENCH_COMMAND("broadphase",
                    "broad-phase strategies vs Box2D 2.4.1 (free fall, "
                    "brownian, gravity)",
                    RunBroadPhaseBench,
                    {.usage = "atoll-bench broadphase [--scenario=A,B] [--sizes=A,B] "
                              "[--objects=N,N] [--frames=N] [--strategies=A,B] "
                              "[--max-frame-ms=MS] [--plot=FILE.png] | --from-csv=A.csv "
                              "--plot=FILE.png",
                     .flags = kBroadPhaseFlags,
                     .example = "atoll-bench broadphase --scenario=brownian --objects=1000,8000 "
                                "--strategies=kd_sap,box2d"});

}  // namespace atl::bench
