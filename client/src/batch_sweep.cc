#include "atoll/client/batch_sweep.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/util/json_util.h>
#include <xxhash.h>

#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "atoll/scene.h"
#include "atoll/sim/simulation.h"

namespace atl::client {
namespace {

// Owner slots a run's scene may name: the protocol's maximum, as the
// server's BatchService accepts them (owners are unused in a batch).
constexpr uint32_t kRunSlots = 64;
// A local run's body limit (as `atoll view`).
constexpr uint32_t kRunMaxBodies = 1'000'000;

absl::Status Invalid(const std::string& field, const std::string& message) {
  return absl::InvalidArgumentError(absl::StrCat(field, ": ", message));
}

// An empty list counts as one default entry.
uint64_t Entries(int size) { return size == 0 ? 1 : static_cast<uint64_t>(size); }

// "sweep.seeds[3]: 7 repeats sweep.seeds[1]" for the first repeated value
// of `list` (a repeated run is a wasted one, and most likely a typo).
template <typename List>
absl::Status CheckNoRepeats(const List& list, const std::string& field) {
  for (int i = 0; i < list.size(); ++i) {
    for (int j = 0; j < i; ++j) {
      if (list.Get(i) == list.Get(j)) {
        return Invalid(absl::StrCat(field, "[", i, "]"),
                       absl::StrCat(list.Get(i), " repeats ", field, "[", j, "]"));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<v1::BatchSweep> ParseBatchSweep(absl::string_view json, absl::string_view origin) {
  v1::BatchSweep sweep;
  const auto status = google::protobuf::util::JsonStringToMessage(std::string(json), &sweep);
  if (!status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(origin, ": not an atl.v1.BatchSweep: ", std::string(status.message())));
  }
  if (absl::Status valid = ValidateBatchSweep(sweep); !valid.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(origin, ": ", valid.message()));
  }
  return sweep;
}

absl::Status ValidateBatchSweep(const v1::BatchSweep& sweep) {
  const bool builtin = !sweep.builtin().empty();
  if (builtin == sweep.has_scene()) {
    return Invalid("sweep", builtin ? "set one of builtin and scene, not both"
                                    : "set one of builtin (a built-in scene name) and scene");
  }
  // The built-in scene the sizes and seeds vary, if any.
  const std::string scene_name = builtin ? sweep.builtin() : sweep.scene().builtin().name();
  std::optional<SceneInfo> info;
  if (!scene_name.empty()) {
    for (const SceneInfo& each : ListScenes()) {
      if (each.name == scene_name) info = each;
    }
    if (!info.has_value()) {
      return Invalid(builtin ? "sweep.builtin" : "sweep.scene.builtin.name",
                     absl::StrCat("unknown built-in scene '", scene_name, "'"));
    }
  } else {
    if (sweep.sizes_size() > 0) {
      return Invalid("sweep.sizes", "the scene has no built-in part (scene.builtin) to size");
    }
    if (sweep.seeds_size() > 0) {
      return Invalid("sweep.seeds", "the scene has no built-in part (scene.builtin) to seed");
    }
  }
  for (int i = 0; i < sweep.sizes_size(); ++i) {
    const int32_t size = sweep.sizes(i);
    const std::string field = absl::StrCat("sweep.sizes[", i, "]");
    if (size < 0) return Invalid(field, absl::StrCat(size, " is negative"));
    if (size > info->max_size) {
      return Invalid(
          field, absl::StrCat(size, " is above ", scene_name, "'s largest size ", info->max_size));
    }
  }
  if (absl::Status s = CheckNoRepeats(sweep.sizes(), "sweep.sizes"); !s.ok()) return s;
  for (int i = 0; i < sweep.seeds_size(); ++i) {
    if (sweep.seeds(i) == 0) {
      return Invalid(absl::StrCat("sweep.seeds[", i, "]"), "seeds start at 1, got 0");
    }
  }
  if (absl::Status s = CheckNoRepeats(sweep.seeds(), "sweep.seeds"); !s.ok()) return s;
  for (int i = 0; i < sweep.substep_counts_size(); ++i) {
    const int32_t count = sweep.substep_counts(i);
    if (count < 1 || count > 64) {
      return Invalid(absl::StrCat("sweep.substep_counts[", i, "]"),
                     absl::StrCat("must be 1..64, got ", count));
    }
  }
  if (absl::Status s = CheckNoRepeats(sweep.substep_counts(), "sweep.substep_counts"); !s.ok()) {
    return s;
  }
  for (int i = 0; i < sweep.gravity_y_size(); ++i) {
    const float g = sweep.gravity_y(i);
    if (!std::isfinite(g) || std::fabs(g) > 1e4f) {
      return Invalid(absl::StrCat("sweep.gravity_y[", i, "]"),
                     absl::StrCat("must be finite with |g| <= 10000, got ", g));
    }
  }
  if (absl::Status s = CheckNoRepeats(sweep.gravity_y(), "sweep.gravity_y"); !s.ok()) return s;
  if (sweep.steps() == 0 || sweep.steps() > kMaxSweepSteps) {
    return Invalid("sweep.steps",
                   absl::StrCat("must be 1..", kMaxSweepSteps, ", got ", sweep.steps()));
  }
  if (sweep.tick_rate_hz() > 240) {
    return Invalid("sweep.tick_rate_hz",
                   absl::StrCat("must be 1..240 (0: 60), got ", sweep.tick_rate_hz()));
  }
  // In floating point: four lists of up to 2^31 entries overflow 64 bits.
  const double runs = static_cast<double>(Entries(sweep.sizes_size())) *
                      static_cast<double>(Entries(sweep.seeds_size())) *
                      static_cast<double>(Entries(sweep.substep_counts_size())) *
                      static_cast<double>(Entries(sweep.gravity_y_size()));
  if (runs > static_cast<double>(kMaxSweepRuns)) {
    return Invalid("sweep",
                   absl::StrFormat("expands into %.0f runs, at most %u", runs, kMaxSweepRuns));
  }
  if (sweep.has_scene()) {
    // The custom parts (bodies, joints, materials, physics) are the same in
    // every run: building run 0's scene checks them once, with the fields
    // named as in the sweep.
    absl::StatusOr<sim::BuiltScene> built =
        sim::BuildScene(SweepRunScene(sweep, SweepRunParams(sweep, 0)), kRunSlots);
    if (!built.ok()) {
      return absl::Status(built.status().code(), absl::StrCat("sweep.", built.status().message()));
    }
  }
  return absl::OkStatus();
}

uint64_t CountSweepRuns(const v1::BatchSweep& sweep) {
  return Entries(sweep.sizes_size()) * Entries(sweep.seeds_size()) *
         Entries(sweep.substep_counts_size()) * Entries(sweep.gravity_y_size());
}

v1::BatchRunParams SweepRunParams(const v1::BatchSweep& sweep, uint64_t index) {
  // Last list fastest: peel the indices off from the back.
  const uint64_t gravities = Entries(sweep.gravity_y_size());
  const uint64_t substeps = Entries(sweep.substep_counts_size());
  const uint64_t seeds = Entries(sweep.seeds_size());
  const int gravity_i = static_cast<int>(index % gravities);
  index /= gravities;
  const int substep_i = static_cast<int>(index % substeps);
  index /= substeps;
  const int seed_i = static_cast<int>(index % seeds);
  index /= seeds;
  const int size_i = static_cast<int>(index);
  v1::BatchRunParams params;
  if (sweep.sizes_size() > 0) {
    params.set_size(sweep.sizes(size_i));
  } else if (sweep.has_scene()) {
    params.set_size(sweep.scene().builtin().size());
  }
  if (sweep.seeds_size() > 0) {
    params.set_seed(sweep.seeds(seed_i));
  } else if (!sweep.builtin().empty() || sweep.scene().has_builtin()) {
    params.set_seed(sweep.has_scene() && sweep.scene().builtin().seed() != 0
                        ? sweep.scene().builtin().seed()
                        : 1);
  }
  if (sweep.substep_counts_size() > 0) params.set_substep_count(sweep.substep_counts(substep_i));
  if (sweep.gravity_y_size() > 0) {
    params.set_has_gravity_y(true);
    params.set_gravity_y(sweep.gravity_y(gravity_i));
  }
  return params;
}

v1::SceneSpec SweepRunScene(const v1::BatchSweep& sweep, const v1::BatchRunParams& params) {
  v1::SceneSpec scene = sweep.scene();
  if (!sweep.builtin().empty()) scene.mutable_builtin()->set_name(sweep.builtin());
  if (scene.has_builtin()) {
    scene.mutable_builtin()->set_size(params.size());
    scene.mutable_builtin()->set_seed(params.seed());
  }
  if (params.substep_count() != 0) {
    scene.mutable_physics()->set_substep_count(params.substep_count());
  }
  if (params.has_gravity_y()) {
    scene.mutable_physics()->mutable_gravity()->set_x(0.0f);
    scene.mutable_physics()->mutable_gravity()->set_y(params.gravity_y());
  }
  return scene;
}

std::string BatchSweepDigest(const v1::BatchSweep& sweep) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    sweep.SerializeToCodedStream(&coded);
  }
  return HashHex(XXH3_64bits(bytes.data(), bytes.size()));
}

std::string DescribeRunParams(const v1::BatchRunParams& params) {
  std::vector<std::string> parts;
  if (params.size() != 0) parts.push_back(absl::StrCat("size ", params.size()));
  if (params.seed() != 0) parts.push_back(absl::StrCat("seed ", params.seed()));
  if (params.substep_count() != 0) {
    parts.push_back(absl::StrCat("substeps ", params.substep_count()));
  }
  if (params.has_gravity_y()) parts.push_back(absl::StrCat("gravity ", params.gravity_y()));
  return parts.empty() ? "defaults" : absl::StrJoin(parts, ", ");
}

bool SameRun(const v1::BatchRunRecord& a, const v1::BatchRunRecord& b, std::string* difference) {
  auto differs = [difference](const std::string& what) {
    if (difference != nullptr) *difference = what;
    return false;
  };
  if (a.sweep_digest() != b.sweep_digest()) {
    return differs(absl::StrCat("sweep ", a.sweep_digest(), " instead of ", b.sweep_digest()));
  }
  if (a.run_index() != b.run_index()) {
    return differs(absl::StrCat("run ", a.run_index(), " instead of ", b.run_index()));
  }
  const v1::BatchRunParams& p = a.params();
  const v1::BatchRunParams& q = b.params();
  if (p.size() != q.size() || p.seed() != q.seed() || p.substep_count() != q.substep_count() ||
      p.has_gravity_y() != q.has_gravity_y() || p.gravity_y() != q.gravity_y()) {
    return differs(absl::StrCat("parameters (", DescribeRunParams(p), ") instead of (",
                                DescribeRunParams(q), ")"));
  }
  if (a.steps() != b.steps() || a.tick_rate_hz() != b.tick_rate_hz()) {
    return differs(absl::StrCat(a.steps(), " steps at ", a.tick_rate_hz(), " Hz instead of ",
                                b.steps(), " at ", b.tick_rate_hz(), " Hz"));
  }
  return true;
}

v1::BatchRunRecord NewRunRecord(const v1::BatchSweep& sweep, const std::string& digest,
                                uint64_t index) {
  v1::BatchRunRecord record;
  record.set_sweep_digest(digest);
  record.set_run_index(index);
  *record.mutable_params() = SweepRunParams(sweep, index);
  record.set_steps(sweep.steps());
  record.set_tick_rate_hz(sweep.tick_rate_hz() == 0 ? 60 : sweep.tick_rate_hz());
  return record;
}

std::string HashHex(uint64_t hash) { return absl::StrFormat("%016x", hash); }

std::string HashChainDigest(std::span<const uint64_t> chain) {
  // Little-endian bytes, whatever the machine, so digests compare across
  // machines.
  std::string bytes(chain.size() * 8, '\0');
  for (size_t i = 0; i < chain.size(); ++i) {
    for (int b = 0; b < 8; ++b) bytes[i * 8 + b] = static_cast<char>(chain[i] >> (8 * b));
  }
  return HashHex(XXH3_64bits(bytes.data(), bytes.size()));
}

absl::StatusOr<v1::BatchRunRecord> RunSweepRun(const v1::BatchSweep& sweep,
                                               const std::string& digest, uint64_t index) {
  const v1::BatchRunParams params = SweepRunParams(sweep, index);
  auto fail = [&](const absl::Status& status) {
    return absl::Status(status.code(), absl::StrCat("run ", index, " (", DescribeRunParams(params),
                                                    "): ", status.message()));
  };
  v1::WorldConfig requested;
  requested.set_tick_rate_hz(sweep.tick_rate_hz());
  requested.set_player_slots(kRunSlots);
  absl::StatusOr<v1::WorldConfig> config = sim::NormalizeWorldConfig(requested, kRunMaxBodies);
  if (!config.ok()) return fail(config.status());

  using Clock = std::chrono::steady_clock;
  const Clock::time_point build_start = Clock::now();
  absl::StatusOr<std::unique_ptr<sim::Simulation>> sim =
      sim::Simulation::Create(SweepRunScene(sweep, params), *config);
  if (!sim.ok()) return fail(sim.status());
  const Clock::time_point start = Clock::now();

  v1::BatchRunRecord record = NewRunRecord(sweep, digest, index);
  record.set_initial_hash(HashHex((*sim)->hash()));
  std::vector<uint64_t> chain;
  chain.reserve(sweep.steps());
  for (uint32_t step = 0; step < sweep.steps(); ++step) {
    if (absl::Status s = (*sim)->Step({}, nullptr); !s.ok()) {
      return fail(absl::Status(s.code(), absl::StrCat("step ", step + 1, ": ", s.message())));
    }
    chain.push_back((*sim)->hash());
  }
  const Clock::time_point end = Clock::now();
  record.set_final_hash(HashHex((*sim)->hash()));
  record.set_chain_digest(HashChainDigest(chain));
  const double wall_ms = std::chrono::duration<double, std::milli>(end - start).count();
  record.set_wall_ms(wall_ms);
  record.set_ms_per_step(wall_ms / sweep.steps());
  record.set_build_ms(std::chrono::duration<double, std::milli>(start - build_start).count());
  const WorldCounters counters = (*sim)->world().GetCounters();
  record.set_bodies(static_cast<uint32_t>(counters.bodies));
  record.set_contacts(static_cast<uint32_t>(counters.contacts));
  record.set_touching_contacts(static_cast<uint32_t>(counters.touching_contacts));
  record.set_awake_bodies(static_cast<uint32_t>(counters.awake_bodies));
  return record;
}

}  // namespace atl::client
