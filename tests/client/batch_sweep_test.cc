// Batch sweeps (atoll/client/batch_sweep.h): the run numbering (cartesian
// product, last list fastest), the parameters each run's scene gets, the
// digest, deterministic runs, and spec errors that name the field.

#include "atoll/client/batch_sweep.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace atl::client {
namespace {

v1::BatchSweep Parse(const std::string& json) {
  absl::StatusOr<v1::BatchSweep> sweep = ParseBatchSweep(json, "test.json");
  EXPECT_TRUE(sweep.ok()) << sweep.status();
  return sweep.ok() ? *sweep : v1::BatchSweep();
}

TEST(BatchSweepTest, ExpandsTheCartesianProductLastListFastest) {
  const v1::BatchSweep sweep = Parse(R"({
    "builtin": "pyramid", "sizes": [4, 8], "seeds": [1, 2, 3],
    "substepCounts": [4, 8], "gravity_y": [-10, -5], "steps": 10})");
  ASSERT_EQ(CountSweepRuns(sweep), 2u * 3u * 2u * 2u);
  uint64_t index = 0;
  for (int32_t size : {4, 8}) {
    for (uint64_t seed : {1, 2, 3}) {
      for (int32_t substeps : {4, 8}) {
        for (float gravity : {-10.0f, -5.0f}) {
          const v1::BatchRunParams params = SweepRunParams(sweep, index);
          EXPECT_EQ(params.size(), size) << "run " << index;
          EXPECT_EQ(params.seed(), seed) << "run " << index;
          EXPECT_EQ(params.substep_count(), substeps) << "run " << index;
          EXPECT_TRUE(params.has_gravity_y()) << "run " << index;
          EXPECT_EQ(params.gravity_y(), gravity) << "run " << index;
          ++index;
        }
      }
    }
  }
}

TEST(BatchSweepTest, EmptyListsMeanOneRunWithTheDefaults) {
  const v1::BatchSweep sweep = Parse(R"({"builtin": "pyramid", "steps": 5})");
  ASSERT_EQ(CountSweepRuns(sweep), 1u);
  const v1::BatchRunParams params = SweepRunParams(sweep, 0);
  EXPECT_EQ(params.size(), 0);
  EXPECT_EQ(params.seed(), 1u);
  EXPECT_EQ(params.substep_count(), 0);
  EXPECT_FALSE(params.has_gravity_y());
  const v1::SceneSpec scene = SweepRunScene(sweep, params);
  EXPECT_EQ(scene.builtin().name(), "pyramid");
  EXPECT_FALSE(scene.has_physics());
}

TEST(BatchSweepTest, RunSceneCarriesTheRunsParameters) {
  const v1::BatchSweep sweep = Parse(R"({
    "scene": {"builtin": {"name": "falling_circles"},
              "physics": {"disable_sleep": true}},
    "sizes": [10, 20], "seeds": [7], "substep_counts": [2], "gravity_y": [-3.5],
    "steps": 5})");
  const v1::SceneSpec scene = SweepRunScene(sweep, SweepRunParams(sweep, 1));
  EXPECT_EQ(scene.builtin().name(), "falling_circles");
  EXPECT_EQ(scene.builtin().size(), 20);
  EXPECT_EQ(scene.builtin().seed(), 7u);
  EXPECT_EQ(scene.physics().substep_count(), 2);
  EXPECT_EQ(scene.physics().gravity().x(), 0.0f);
  EXPECT_EQ(scene.physics().gravity().y(), -3.5f);
  // The sweep's own scene settings stay.
  EXPECT_TRUE(scene.physics().disable_sleep());
}

TEST(BatchSweepTest, DigestIgnoresHowTheFileIsWrittenButNotWhatItSays) {
  const v1::BatchSweep a = Parse(R"({"builtin": "pyramid", "sizes": [4], "steps": 5})");
  const v1::BatchSweep b = Parse("{\n  \"steps\": 5,\n  \"sizes\": [ 4 ],\"builtin\":\"pyramid\"}");
  const v1::BatchSweep c = Parse(R"({"builtin": "pyramid", "sizes": [4], "steps": 6})");
  EXPECT_EQ(BatchSweepDigest(a), BatchSweepDigest(b));
  EXPECT_NE(BatchSweepDigest(a), BatchSweepDigest(c));
  EXPECT_EQ(BatchSweepDigest(a).size(), 16u);
}

TEST(BatchSweepTest, RunsAreDeterministicAndSeedsMatter) {
  const v1::BatchSweep sweep =
      Parse(R"({"builtin": "falling_circles", "sizes": [12], "seeds": [1, 2], "steps": 30})");
  const std::string digest = BatchSweepDigest(sweep);
  absl::StatusOr<v1::BatchRunRecord> first = RunSweepRun(sweep, digest, 0);
  absl::StatusOr<v1::BatchRunRecord> again = RunSweepRun(sweep, digest, 0);
  absl::StatusOr<v1::BatchRunRecord> other_seed = RunSweepRun(sweep, digest, 1);
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE(again.ok()) << again.status();
  ASSERT_TRUE(other_seed.ok()) << other_seed.status();
  EXPECT_EQ(first->final_hash(), again->final_hash());
  EXPECT_EQ(first->chain_digest(), again->chain_digest());
  EXPECT_NE(first->chain_digest(), other_seed->chain_digest());
  EXPECT_EQ(first->run_index(), 0u);
  EXPECT_EQ(first->sweep_digest(), digest);
  EXPECT_EQ(first->steps(), 30u);
  EXPECT_EQ(first->tick_rate_hz(), 60u);
  EXPECT_GE(first->bodies(), 12u);  // 12 circles and the ground
  EXPECT_EQ(first->final_hash().size(), 16u);
  std::string difference;
  EXPECT_TRUE(SameRun(*first, *again, &difference)) << difference;
  v1::BatchRunRecord as_run_0 = *other_seed;
  as_run_0.set_run_index(0);
  EXPECT_FALSE(SameRun(*first, as_run_0, &difference));
  EXPECT_NE(difference.find("seed 2"), std::string::npos) << difference;
}

TEST(BatchSweepTest, ErrorsNameTheField) {
  struct Case {
    std::string json;
    std::string error;
  };
  const std::vector<Case> cases = {
      {R"({"builtin": "pyramid", "sizes": [4, 8, -1], "steps": 5})",
       "test.json: sweep.sizes[2]: -1 is negative"},
      {R"({"builtin": "pyramid", "sizes": [4, 5000], "steps": 5})",
       "sweep.sizes[1]: 5000 is above pyramid's largest size 1400"},
      {R"({"builtin": "pyramid", "sizes": [4, 8, 4], "steps": 5})",
       "sweep.sizes[2]: 4 repeats sweep.sizes[0]"},
      {R"({"builtin": "pyramid", "seeds": [3, 0], "steps": 5})",
       "sweep.seeds[1]: seeds start at 1, got 0"},
      {R"({"builtin": "pyramid", "substep_counts": [4, 65], "steps": 5})",
       "sweep.substep_counts[1]: must be 1..64, got 65"},
      {R"({"builtin": "pyramid", "gravity_y": [-10, "Infinity"], "steps": 5})",
       "sweep.gravity_y[1]: must be finite"},
      {R"({"builtin": "pyramid", "steps": 0})", "sweep.steps: must be 1..100000, got 0"},
      {R"({"builtin": "pyramid", "steps": 5, "tick_rate_hz": 300})",
       "sweep.tick_rate_hz: must be 1..240"},
      {R"({"builtin": "no_such_scene", "steps": 5})",
       "sweep.builtin: unknown built-in scene 'no_such_scene'"},
      {R"({"steps": 5})", "sweep: set one of builtin"},
      {R"({"builtin": "pyramid", "scene": {"builtin": {"name": "pyramid"}}, "steps": 5})",
       "sweep: set one of builtin and scene, not both"},
      {R"({"scene": {"bodies": [{"type": "BODY_TYPE_STATIC"}]}, "sizes": [3], "steps": 5})",
       "sweep.sizes: the scene has no built-in part"},
      {R"({"scene": {"bodies": [{"type": "BODY_TYPE_DYNAMIC", "shapes": [
            {"circle": {"radius": -1}}]}]}, "steps": 5})",
       "sweep.scene.bodies[0].shapes[0].circle: circle: radius -1"},
      {R"({"builtin": "pyramid", "steps": 5, "stepz": 3})", "test.json: not an atl.v1.BatchSweep"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<v1::BatchSweep> sweep = ParseBatchSweep(c.json, "test.json");
    ASSERT_FALSE(sweep.ok()) << c.json;
    EXPECT_EQ(sweep.status().code(), absl::StatusCode::kInvalidArgument) << sweep.status();
    EXPECT_NE(sweep.status().message().find(c.error), absl::string_view::npos)
        << "got: " << sweep.status().message() << "\nwanted: " << c.error;
  }
}

TEST(BatchSweepTest, TooManyRunsAreRefused) {
  v1::BatchSweep sweep;
  sweep.set_builtin("pyramid");
  sweep.set_steps(1);
  for (int i = 1; i <= 200; ++i) {
    sweep.add_sizes(i);
    sweep.add_seeds(static_cast<uint64_t>(i));
  }
  for (int i = 1; i <= 64; ++i) sweep.add_substep_counts(i);
  const absl::Status status = ValidateBatchSweep(sweep);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.message().find("sweep: expands into 2560000 runs, at most 1000000"),
            absl::string_view::npos)
      << status;
}

}  // namespace
}  // namespace atl::client
