// Deltas: exact reconstruction, cost proportional to what moved, and
// defensive decoding.

#include "atoll/delta.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "atoll/scene.h"
#include "atoll/snapshot.h"
#include "engine/world/world_test_util.h"
#include "state/snapshot_format.h"

namespace atl {
namespace {

TEST(DeltaTest, RebuildsTargetByteForByte) {
  auto world = BuildWorld(MakeScene("falling_squares", {.size = 200}).value()).value();
  std::string base = SaveSnapshot(*world);
  for (int tick = 0; tick < 120; ++tick) {
    ASSERT_TRUE(world->Step(1.0f / 60.0f).ok());
    const std::string target = SaveSnapshot(*world);
    auto delta = MakeDelta(base, target);
    ASSERT_TRUE(delta.ok()) << delta.status();
    auto rebuilt = ApplyDelta(base, *delta);
    ASSERT_TRUE(rebuilt.ok()) << rebuilt.status();
    ASSERT_EQ(*rebuilt, target) << "tick " << tick;
    // Every 10 ticks, move the base forward (like an acknowledged snapshot).
    if (tick % 10 == 0) base = target;
  }
}

// A block of sleeping boxes and one moving body: the delta's size does not
// grow with the number of sleepers.
size_t DeltaSizeWithSleepers(int sleepers) {
  WorldDef def;
  def.gravity = {0.0f, 0.0f};
  auto world = testing::MakeWorld(def);
  for (int i = 0; i < sleepers; ++i) {
    BodyDef bd;
    bd.type = BodyType::kDynamic;
    bd.position = {static_cast<float>(i % 100) * 2.0f, static_cast<float>(i / 100) * 2.0f};
    bd.is_awake = false;
    const BodyId id = world->CreateBody(bd).value();
    EXPECT_TRUE(world->CreatePolygonShape(id, ShapeDef(), testing::BoxOrDie(0.4f, 0.4f)).ok());
  }
  BodyDef mover;
  mover.type = BodyType::kDynamic;
  mover.position = {-50.0f, -50.0f};
  mover.linear_velocity = {1.0f, 0.0f};
  const BodyId id = world->CreateBody(mover).value();
  EXPECT_TRUE(world->CreateCircleShape(id, ShapeDef(), Circle{{0.0f, 0.0f}, 0.5f}).ok());
  const std::string base = SaveSnapshot(*world);
  testing::StepN(world.get(), 10);
  EXPECT_EQ(world->GetCounters().awake_bodies, 1);
  return MakeDelta(base, SaveSnapshot(*world)).value().size();
}

TEST(DeltaTest, SleepingBodiesCostNothing) {
  const size_t few = DeltaSizeWithSleepers(100);
  const size_t many = DeltaSizeWithSleepers(4000);
  EXPECT_EQ(few, many);
  EXPECT_LT(many, 200u);
}

// A snapshot frame around one record of `payload` (the trailer is not
// checked by MakeDelta and left zero).
std::string OneRecordSnapshot(const std::string& payload) {
  std::string s(kSnapshotMagic, sizeof(kSnapshotMagic));
  auto put32 = [&s](uint32_t v) { s.append(reinterpret_cast<const char*>(&v), 4); };
  put32(1);  // version
  put32(static_cast<uint32_t>(8 + payload.size()));  // body size
  put32(0x03000000u);  // record key
  put32(static_cast<uint32_t>(payload.size()));  // record length
  s += payload;
  s.append(kSnapshotTrailerSize, '\0');
  return s;
}

// A changed record is sent as its changed byte ranges, a range going on
// while the next difference is at most 8 bytes after its last one: payload
// differences at 3, 11 (8 after 3), 20 (9 after 11), 40, 41 and 63 make the
// ranges [3, 11], [20], [40, 41] and [63], at record offsets 8 further on
// (the record's key and length come first).
TEST(DeltaTest, PatchRangesMergeDifferencesAtMostEightBytesApart) {
  std::string payload(64, 'x');
  const std::string base = OneRecordSnapshot(payload);
  for (int at : {3, 11, 20, 40, 41, 63}) payload[at] = 'y';
  const std::string target = OneRecordSnapshot(payload);
  const std::string delta = MakeDelta(base, target).value();
  // magic, version, base hash, target hash, snapshot version; then one op.
  size_t at = 8 + 4 + 8 + 8 + 4;
  ASSERT_EQ(delta[at++], 3);  // kPatch
  auto get32 = [&delta, &at] {
    uint32_t v = 0;
    std::memcpy(&v, delta.data() + at, 4);
    at += 4;
    return v;
  };
  ASSERT_EQ(get32(), 4u);
  const std::vector<std::pair<uint32_t, uint32_t>> expected = {
      {8 + 3, 9}, {8 + 20, 1}, {8 + 40, 2}, {8 + 63, 1}};
  for (const auto& [offset, length] : expected) {
    EXPECT_EQ(get32(), offset);
    EXPECT_EQ(get32(), length);
    EXPECT_EQ(delta.substr(at, length), target.substr(kSnapshotHeaderSize + offset, length));
    at += length;
  }
  EXPECT_EQ(at, delta.size());
  EXPECT_EQ(ApplyDelta(base, delta).value().substr(0, target.size() - kSnapshotTrailerSize),
            target.substr(0, target.size() - kSnapshotTrailerSize));
}

TEST(DeltaTest, RejectsWrongBaseAndCorruption) {
  auto world = BuildWorld(MakeScene("pyramid", {.size = 10}).value()).value();
  const std::string base = SaveSnapshot(*world);
  testing::StepN(world.get(), 5);
  const std::string target = SaveSnapshot(*world);
  testing::StepN(world.get(), 5);
  const std::string other = SaveSnapshot(*world);
  const std::string delta = MakeDelta(base, target).value();

  EXPECT_EQ(ApplyDelta(other, delta).status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_FALSE(ApplyDelta(base, delta.substr(0, delta.size() - 3)).ok());
  EXPECT_FALSE(ApplyDelta(base, "not a delta").ok());
  for (size_t at : {size_t{40}, delta.size() / 2, delta.size() - 1}) {
    std::string corrupted = delta;
    corrupted[at] ^= 0x5a;
    EXPECT_FALSE(ApplyDelta(base, corrupted).ok()) << "flip at " << at;
  }
  EXPECT_FALSE(MakeDelta("junk", target).ok());
}

}  // namespace
}  // namespace atl
