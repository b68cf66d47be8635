// SaveCheckpoint's snapshot is the world's, whichever way the simulation
// got there: it reuses the bytes its state hash was computed from, and must
// never hand out those of an earlier state.

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "atoll/sim/simulation.h"
#include "atoll/snapshot.h"

namespace atl::sim {
namespace {

// A box falling onto the ground: every step changes the state.
std::unique_ptr<Simulation> FallingBox() {
  v1::SceneSpec spec;
  v1::BodySpec* ground = spec.add_bodies();
  ground->add_shapes()->mutable_box()->set_half_width(10.0f);
  ground->mutable_shapes(0)->mutable_box()->set_half_height(0.5f);
  v1::BodySpec* box = spec.add_bodies();
  box->set_type(v1::BODY_TYPE_DYNAMIC);
  box->mutable_position()->set_y(3.0f);
  box->add_shapes()->mutable_box()->set_half_width(0.5f);
  box->mutable_shapes(0)->mutable_box()->set_half_height(0.5f);
  auto sim = Simulation::Create(spec, NormalizeWorldConfig(v1::WorldConfig(), 100).value());
  EXPECT_TRUE(sim.ok()) << sim.status();
  return *std::move(sim);
}

void ExpectCheckpointIsTheWorld(const Simulation& sim, const char* after) {
  const v1::Checkpoint cp = sim.SaveCheckpoint({});
  EXPECT_EQ(cp.tick(), sim.tick()) << after;
  EXPECT_TRUE(cp.snapshot() == SaveSnapshot(sim.world())) << after;
  EXPECT_EQ(cp.state_hash(), HashWorld(sim.world())) << after;
}

TEST(SimulationCheckpointTest, SnapshotIsTheCurrentStateAfterEveryKindOfChange) {
  std::unique_ptr<Simulation> sim = FallingBox();
  ExpectCheckpointIsTheWorld(*sim, "create");
  const v1::Checkpoint start = sim->SaveCheckpoint({});
  std::vector<CommandFailure> failures;
  ASSERT_TRUE(sim->Step({}, &failures).ok());
  ExpectCheckpointIsTheWorld(*sim, "a hashed step");

  // A step that does not hash leaves the hash of the tick before: the
  // checkpoint must still hold the new state, not the hashed one.
  const std::string hashed_state = SaveSnapshot(sim->world());
  ASSERT_TRUE(sim->StepUnhashed({}, &failures).ok());
  const v1::Checkpoint unhashed = sim->SaveCheckpoint({});
  EXPECT_EQ(unhashed.tick(), 2u);
  EXPECT_TRUE(unhashed.snapshot() == SaveSnapshot(sim->world()));
  EXPECT_FALSE(unhashed.snapshot() == hashed_state);

  std::unique_ptr<Simulation> other = FallingBox();
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(other->Step({}, &failures).ok());
  ASSERT_TRUE(sim->CopyStateFrom(*other).ok());
  ExpectCheckpointIsTheWorld(*sim, "CopyStateFrom");
  EXPECT_EQ(sim->tick(), 5u);

  ASSERT_TRUE(sim->RestoreCheckpoint(start).ok());
  ExpectCheckpointIsTheWorld(*sim, "RestoreCheckpoint");
  EXPECT_TRUE(sim->SaveCheckpoint({}).snapshot() == start.snapshot());

  // A checkpoint that does not load changes nothing, its bytes included.
  v1::Checkpoint bad = unhashed;
  bad.set_snapshot("not a snapshot");
  EXPECT_FALSE(sim->RestoreCheckpoint(bad).ok());
  ExpectCheckpointIsTheWorld(*sim, "a refused RestoreCheckpoint");
  EXPECT_TRUE(sim->SaveCheckpoint({}).snapshot() == start.snapshot());
}

}  // namespace
}  // namespace atl::sim
