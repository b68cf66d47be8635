#include "core/id_pool.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace atl {
namespace {

std::vector<int32_t> Alive(const IdPool& pool) {
  std::vector<int32_t> out;
  pool.ForEachAlive([&out](int32_t i) { out.push_back(i); });
  return out;
}

// What ForEachAlive must give: the capacity walked slot by slot.
std::vector<int32_t> AliveByScan(const IdPool& pool) {
  std::vector<int32_t> out;
  for (int32_t i = 0; i < pool.Capacity(); ++i) {
    if (pool.IsAlive(i)) out.push_back(i);
  }
  return out;
}

TEST(IdPoolTest, ForEachAliveVisitsTheLiveSlotsInAscendingOrder) {
  IdPool pool;
  EXPECT_TRUE(Alive(pool).empty());
  for (int32_t i = 0; i < 200; ++i) ASSERT_EQ(pool.Alloc(), i);
  // Free across word boundaries (63/64, 127/128) and the last slot.
  for (int32_t i : {0, 5, 63, 64, 127, 128, 150, 199}) pool.Free(i);
  EXPECT_EQ(Alive(pool), AliveByScan(pool));
  EXPECT_EQ(static_cast<int32_t>(Alive(pool).size()), pool.Count());
  // Reuse is last-freed-first; the capacity stays.
  EXPECT_EQ(pool.Alloc(), 199);
  EXPECT_EQ(pool.Alloc(), 150);
  EXPECT_EQ(pool.Capacity(), 200);
  EXPECT_EQ(Alive(pool), AliveByScan(pool));
}

TEST(IdPoolTest, ASparsePoolListsOnlyItsLiveSlots) {
  IdPool pool;
  for (int32_t i = 0; i < 80000; ++i) pool.Alloc();
  for (int32_t i = 0; i < 80000; ++i) {
    if (i % 1000 != 7) pool.Free(i);
  }
  const std::vector<int32_t> alive = Alive(pool);
  ASSERT_EQ(alive.size(), 80u);
  for (size_t k = 0; k < alive.size(); ++k) EXPECT_EQ(alive[k], static_cast<int32_t>(k) * 1000 + 7);
}

TEST(IdPoolTest, FreeingTheVisitedSlotDuringTheWalkVisitsEveryOtherOnce) {
  IdPool pool;
  for (int32_t i = 0; i < 130; ++i) pool.Alloc();
  std::vector<int32_t> seen;
  pool.ForEachAlive([&](int32_t i) {
    seen.push_back(i);
    if (i % 3 == 0) pool.Free(i);
  });
  ASSERT_EQ(seen.size(), 130u);
  for (int32_t i = 0; i < 130; ++i) EXPECT_EQ(seen[i], i);
  EXPECT_EQ(Alive(pool), AliveByScan(pool));
  EXPECT_EQ(pool.Count(), 130 - 44);
}

TEST(IdPoolTest, RestoreRebuildsTheLiveSlots) {
  IdPool pool;
  for (int32_t i = 0; i < 100; ++i) pool.Alloc();
  for (int32_t i = 10; i < 90; ++i) pool.Free(i);
  IdPool copy;
  copy.Alloc();  // state the restore replaces
  copy.Restore(pool.free_list(), pool.generations(), pool.alive());
  EXPECT_EQ(Alive(copy), AliveByScan(pool));
  // Both hand out the same slots next, and list them alike.
  for (int32_t k = 0; k < 5; ++k) EXPECT_EQ(copy.Alloc(), pool.Alloc());
  EXPECT_EQ(Alive(copy), Alive(pool));
}

TEST(IdPoolTest, PeekAllocNamesTheSlotsTheComingAllocsReturn) {
  IdPool pool;
  for (int32_t i = 0; i < 6; ++i) pool.Alloc();
  pool.Free(1);
  pool.Free(4);
  // Two freed slots (last freed first), then new ones past the capacity.
  std::vector<int32_t> peeked;
  for (int32_t n = 0; n < 4; ++n) peeked.push_back(pool.PeekAlloc(n));
  std::vector<int32_t> allocated;
  for (int32_t n = 0; n < 4; ++n) allocated.push_back(pool.Alloc());
  EXPECT_EQ(peeked, allocated);
  EXPECT_EQ(allocated, (std::vector<int32_t>{4, 1, 6, 7}));
}

}  // namespace
}  // namespace atl
