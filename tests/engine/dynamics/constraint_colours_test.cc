// The colouring of solver constraints (constraint_colours.h).

#include "dynamics/constraint_colours.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "parallel/stage_runner.h"

namespace atl {
namespace {

constexpr int32_t kColours = ConstraintColours::kColourCount;

// Constraint indices in the order one pass visits them (order() positions,
// stage after stage).
std::vector<int32_t> PassOrder(const ConstraintColours& colours, int32_t grain) {
  StageRunner run;
  ConstraintColours::AddStages(colours.starts(), &run, /*tag=*/0, grain, /*concurrency=*/1);
  std::vector<int32_t> order;
  for (const StageRunner::Stage& stage : run.stages()) {
    for (int32_t k = stage.begin; k < stage.begin + stage.count; ++k) {
      order.push_back(colours.order()[static_cast<size_t>(k)]);
    }
  }
  return order;
}

// A chain: constraint i moves bodies i and i + 1, so it shares a body with
// its neighbours. Colours follow the chain round the wheel.
TEST(ConstraintColoursTest, ChainTakesTheColoursInTurn) {
  constexpr int32_t kConstraints = 300;
  ConstraintColours colours;
  colours.Colour(kConstraints, kConstraints + 1, [](int32_t i, int32_t slots[2]) {
    slots[0] = i;
    slots[1] = i + 1;
  });
  EXPECT_EQ(colours.ColourSize(kColours), 0) << "nothing overflows";
  // Colour c holds c, c + kColours, ... in index order; colours in turn.
  std::vector<int32_t> expected;
  for (int32_t c = 0; c < kColours; ++c) {
    for (int32_t i = c; i < kConstraints; i += kColours) expected.push_back(i);
  }
  EXPECT_EQ(PassOrder(colours, 16), expected);
}

TEST(ConstraintColoursTest, BodiesNotMovedDoNotBlock) {
  // Ten constraints between one kinematic body (-1) and ten others: one
  // colour, one stage.
  ConstraintColours colours;
  colours.Colour(10, 10, [](int32_t i, int32_t slots[2]) {
    slots[0] = -1;
    slots[1] = i;
  });
  EXPECT_EQ(colours.ColourSize(0), 10);
  StageRunner run;
  ConstraintColours::AddStages(colours.starts(), &run, 0, 1, 4);
  ASSERT_EQ(run.stages().size(), 1u);
  EXPECT_EQ(run.stages()[0].count, 10);
}

TEST(ConstraintColoursTest, StarOverflowsPastTheLastColourIntoOneBlock) {
  // Every constraint moves body 0: one per colour, the rest overflow.
  ConstraintColours colours;
  colours.Colour(30, 31, [](int32_t i, int32_t slots[2]) {
    slots[0] = 0;
    slots[1] = i + 1;
  });
  for (int32_t c = 0; c < kColours; ++c) EXPECT_EQ(colours.ColourSize(c), 1);
  EXPECT_EQ(colours.ColourSize(kColours), 30 - kColours);
  std::vector<int32_t> expected(30);
  for (int32_t i = 0; i < 30; ++i) expected[static_cast<size_t>(i)] = i;
  EXPECT_EQ(PassOrder(colours, 1), expected);
  // The overflow's constraints share body 0: one block, run in order.
  StageRunner run;
  ConstraintColours::AddStages(colours.starts(), &run, 0, /*grain=*/1, /*concurrency=*/8);
  ASSERT_EQ(run.stages().size(), static_cast<size_t>(kColours + 1));
  EXPECT_EQ(run.stages().back().count, 30 - kColours);
  EXPECT_EQ(run.stages().back().block_count(), 1);
}

TEST(ConstraintColoursTest, ColoursShareNoMovedBody) {
  // A random-ish graph: no two constraints of one colour move the same body.
  constexpr int32_t kBodies = 200;
  constexpr int32_t kConstraints = 1500;
  auto ends = [](int32_t i, int32_t slots[2]) {
    slots[0] = (i * 37) % kBodies;
    slots[1] = (i * 91 + 13) % kBodies == slots[0] ? -1 : (i * 91 + 13) % kBodies;
  };
  ConstraintColours colours;
  colours.Colour(kConstraints, kBodies, ends);
  StageRunner run;
  ConstraintColours::AddStages(colours.starts(), &run, 0, 1, 1);
  const bool overflow = colours.ColourSize(kColours) > 0;
  for (size_t s = 0; s < run.stages().size(); ++s) {
    if (overflow && s + 1 == run.stages().size()) break;  // the overflow may share
    std::vector<int> used(kBodies, 0);
    const StageRunner::Stage& stage = run.stages()[s];
    for (int32_t k = stage.begin; k < stage.begin + stage.count; ++k) {
      int32_t slots[2];
      ends(colours.order()[static_cast<size_t>(k)], slots);
      for (int32_t slot : slots) {
        if (slot < 0) continue;
        EXPECT_EQ(used[static_cast<size_t>(slot)]++, 0) << "body " << slot << " in stage " << s;
      }
    }
  }
}

TEST(ConstraintColoursTest, EachTakesTheFirstFreeColourRoundTheWheel) {
  // The rule of the file comment, colour by colour as a reference: from the
  // colour after the latest either body has, the first neither body has,
  // wrapping after the last; none free: the overflow. Dense enough that
  // bodies run out of colours.
  constexpr int32_t kBodies = 40;
  constexpr int32_t kConstraints = 900;
  auto ends = [](int32_t i, int32_t slots[2]) {
    slots[0] = (i * 7) % kBodies;
    slots[1] = i % 5 == 0 ? -1 : (i * 13 + 3) % kBodies;
    if (slots[1] == slots[0]) slots[1] = -1;
  };
  ConstraintColours colours;
  colours.Colour(kConstraints, kBodies, ends);
  std::vector<std::vector<bool>> has(kBodies, std::vector<bool>(kColours, false));
  std::vector<int32_t> latest(kBodies, -1);
  int32_t overflowed = 0;
  for (int32_t i = 0; i < kConstraints; ++i) {
    int32_t slots[2];
    ends(i, slots);
    int32_t first = 0;
    for (int32_t b : slots) {
      if (b >= 0) first = std::max(first, latest[b] + 1);
    }
    int32_t expected = kColours;
    for (int32_t k = 0; k < kColours; ++k) {
      const int32_t c = (first + k) % kColours;
      if ((slots[0] >= 0 && has[slots[0]][c]) || (slots[1] >= 0 && has[slots[1]][c])) continue;
      expected = c;
      for (int32_t b : slots) {
        if (b < 0) continue;
        has[b][c] = true;
        latest[b] = c;
      }
      break;
    }
    overflowed += expected == kColours ? 1 : 0;
    ASSERT_EQ(colours.ColourOf(i), expected) << "constraint " << i;
  }
  EXPECT_GT(overflowed, 0) << "the graph should be dense enough to overflow";
}

}  // namespace
}  // namespace atl
