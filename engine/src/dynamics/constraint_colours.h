// Atoll — graph colouring of the solver's constraints, so the constraints
// of one colour can be solved at the same time.
//
// Two constraints that share a body the solver moves cannot run at once:
// both would read, update and write that body's velocity. Constraints of
// one colour share no such body, so each colour is an independent batch
// that any number of threads can split into blocks with the same result.
// Colours are solved one after the other; the Gauss-Seidel order is "colour
// by colour" at every thread count, 1 included, which is what makes the
// parallel solve bit-identical to the serial one.
//
// Bodies that no constraint moves (static and kinematic ones, and solver
// slots with zero inverse mass and inertia) do not block: constraints only
// read them.
//
// The colouring is greedy in constraint index order, so it is a pure
// function of the constraint list, but it does not take the lowest free
// colour: each constraint searches from the colour after the latest one its
// bodies already have, wrapping round after the last. Along a chain of
// constraints that share bodies (a stack, a pyramid, a rope) the colours then
// follow index order for up to kColourCount links, so a sweep still goes
// from the ground up the way the serial index-order sweep did. Lowest-free
// colouring spreads every colour over the whole pyramid instead; with 4
// substeps a 20-row pyramid then rocks and never sleeps (StackingTest).
// Constraints that find no free colour among kColourCount go to an overflow
// group solved serially after the colours.

#ifndef ATOLL_DYNAMICS_CONSTRAINT_COLOURS_H_
#define ATOLL_DYNAMICS_CONSTRAINT_COLOURS_H_

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "parallel/stage_runner.h"

namespace atl {

/// The solver writes a body through a constraint only when the constraint
/// can move it (a solver slot with inverse mass or inertia); other bodies are
/// shared read-only between the constraints of a colour.
inline bool ConstraintMoves(int32_t index, float inv_mass, float inv_inertia) {
  return index >= 0 && (inv_mass > 0.0f || inv_inertia > 0.0f);
}

class ConstraintColours {
 public:
  /// More colours than a stack or a pyramid needs (about twice the contacts
  /// of one body); past this, constraints overflow.
  static constexpr int32_t kColourCount = 24;

  /// Colours `count` constraints, where body_slots(i, slots) writes the
  /// solver slots of the bodies constraint i moves into slots[0..1] (-1 for
  /// a body it does not move). `body_count` bounds the slots.
  template <typename BodySlots>
  void Colour(int32_t count, int32_t body_count, BodySlots&& body_slots) {
    bodies_.assign(static_cast<size_t>(body_count), BodyColours{});
    colour_of_.resize(static_cast<size_t>(count));
    std::array<int32_t, kColourCount + 1> sizes{};
    for (int32_t i = 0; i < count; ++i) {
      int32_t slots[2];
      body_slots(i, slots);
      // The colours either body has, and the colour after the latest one
      // either has, where the search starts round the wheel (see the file
      // comment).
      uint32_t taken = 0;
      int32_t first = 0;
      for (int32_t slot : slots) {
        if (slot < 0) continue;
        const BodyColours& body = bodies_[static_cast<size_t>(slot)];
        taken |= body.colours;
        first = std::max(first, body.latest + 1);
      }
      const uint32_t free = ~taken & kAllColours;
      int32_t colour = kColourCount;  // overflow
      if (free != 0) {
        // The first free colour from `first` on, else the first from 0.
        const uint32_t ahead = free & (~uint32_t{0} << (first % kColourCount));
        colour = __builtin_ctz(ahead != 0 ? ahead : free);
        for (int32_t slot : slots) {
          if (slot < 0) continue;
          BodyColours& body = bodies_[static_cast<size_t>(slot)];
          body.colours |= uint32_t{1} << colour;
          body.latest = colour;
        }
      }
      colour_of_[static_cast<size_t>(i)] = static_cast<uint8_t>(colour);
      ++sizes[static_cast<size_t>(colour)];
    }
    // Counting sort: each colour's constraints stay in index order.
    starts_[0] = 0;
    for (int32_t c = 0; c <= kColourCount; ++c)
      starts_[c + 1] = starts_[c] + sizes[c];
    std::array<int32_t, kColourCount + 1> cursor;
    std::copy(starts_.begin(), starts_.end() - 1, cursor.begin());
    order_.resize(static_cast<size_t>(count));
    position_.resize(static_cast<size_t>(count));
    for (int32_t i = 0; i < count; ++i) {
      const int32_t k = cursor[colour_of_[i]]++;
      order_[k] = i;
      position_[i] = k;
    }
  }

  /// Constraint indices by colour: colour 0's in index order, then colour
  /// 1's, ..., the overflow last. A solver that stores its constraints in
  /// this order walks each colour through contiguous memory.
  const std::vector<int32_t>& order() const { return order_; }
  /// Where constraint i is in order().
  int32_t Position(int32_t i) const { return position_[i]; }
  /// The colour of constraint i (kColourCount: the overflow).
  int32_t ColourOf(int32_t i) const { return colour_of_[i]; }

  /// Where each colour's constraints begin in order() (the overflow's at
  /// kColourCount, the end at kColourCount + 1).
  using Starts = std::array<int32_t, kColourCount + 2>;
  const Starts& starts() const { return starts_; }

  /// Appends the stages of one pass to `runner`, over items laid out by
  /// colour as `starts` says (starts() for constraints in order()): one
  /// stage per non-empty colour, in blocks of at least `grain` items, then
  /// the overflow as a single block (its constraints share bodies, so they
  /// run in order on one thread).
  static void AddStages(const Starts& starts, StageRunner* runner, int32_t tag, int32_t grain,
                        int32_t concurrency) {
    for (int32_t c = 0; c < kColourCount; ++c) {
      runner->Add(tag, starts[c], starts[c + 1] - starts[c], grain, concurrency);
    }
    const int32_t overflow = starts[kColourCount + 1] - starts[kColourCount];
    runner->Add(tag, starts[kColourCount], overflow, overflow, concurrency);
  }

  /// Constraints in colour c (c == kColourCount: the overflow).
  int32_t ColourSize(int32_t c) const { return starts_[c + 1] - starts_[c]; }

 private:
  static_assert(kColourCount < 32, "a body's colours are the bits of one word");
  static constexpr uint32_t kAllColours = (uint32_t{1} << kColourCount) - 1;

  // Per body slot: the colours of the constraints coloured on it so far,
  // and the latest of them (-1: none).
  struct BodyColours {
    uint32_t colours = 0;
    int32_t latest = -1;
  };

  std::vector<int32_t> order_;
  std::vector<int32_t> position_;
  Starts starts_{};
  std::vector<BodyColours> bodies_;
  std::vector<uint8_t> colour_of_;
};

}  // namespace atl

#endif  // ATOLL_DYNAMICS_CONSTRAINT_COLOURS_H_
