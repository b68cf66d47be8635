// The engine's own sine/cosine/atan2 against libm (tests may use libm; the
// engine may not). The bounds asserted here are the ones documented in
// engine/src/core/trig.cc and docs/determinism.md.

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>

#include <gtest/gtest.h>

#include "atoll/math.h"

namespace atl {
namespace {

constexpr double kRotMaxError = 2.0e-7;
constexpr double kAtan2MaxError = 3.5e-7;

struct RotError {
  double max_cos = 0.0;
  double max_sin = 0.0;
};

void Accumulate(float angle, RotError* error) {
  const Rot q = MakeRot(angle);
  const double a = static_cast<double>(angle);
  error->max_cos = std::fmax(error->max_cos, std::fabs(q.c - std::cos(a)));
  error->max_sin = std::fmax(error->max_sin, std::fabs(q.s - std::sin(a)));
}

TEST(TrigTest, MakeRotMatchesLibmOnDenseSweepOfFourTurns) {
  RotError error;
  // ~1.6 million angles over [-4pi, 4pi], step 1.6e-5 rad.
  const int kSteps = 1 << 20;
  for (int i = 0; i <= kSteps; ++i) {
    const double t = static_cast<double>(i) / kSteps;
    Accumulate(static_cast<float>(-4.0 * M_PI + 8.0 * M_PI * t), &error);
  }
  std::printf("MakeRot max error on [-4pi, 4pi]: cos %.3g sin %.3g\n",
              error.max_cos, error.max_sin);
  EXPECT_LE(error.max_cos, kRotMaxError);
  EXPECT_LE(error.max_sin, kRotMaxError);
}

TEST(TrigTest, MakeRotMatchesLibmForLargeAngles) {
  RotError error;
  std::mt19937 rng(1234);
  std::uniform_real_distribution<float> angle(-1.0e5f, 1.0e5f);
  for (int i = 0; i < 200000; ++i) Accumulate(angle(rng), &error);
  // Quadrant boundaries far from zero are where a naive reduction fails.
  for (int k = -60000; k <= 60000; k += 7) {
    const float a = static_cast<float>(k * (M_PI / 2.0));
    if (std::fabs(a) <= 1.0e5f) Accumulate(a, &error);
  }
  std::printf("MakeRot max error on [-1e5, 1e5]: cos %.3g sin %.3g\n",
              error.max_cos, error.max_sin);
  EXPECT_LE(error.max_cos, kRotMaxError);
  EXPECT_LE(error.max_sin, kRotMaxError);
}

TEST(TrigTest, MakeRotIsExactAtZeroAndUnitLength) {
  const Rot zero = MakeRot(0.0f);
  EXPECT_EQ(zero.c, 1.0f);
  EXPECT_EQ(zero.s, 0.0f);
  for (float a = -10.0f; a < 10.0f; a += 0.001f) {
    const Rot q = MakeRot(a);
    EXPECT_NEAR(q.c * q.c + q.s * q.s, 1.0f, 3.0e-7f) << a;
  }
}

TEST(TrigTest, MakeRotIsOddInSineAndEvenInCosine) {
  for (float a = 0.0f; a < 20.0f; a += 0.01f) {
    const Rot p = MakeRot(a);
    const Rot n = MakeRot(-a);
    EXPECT_EQ(p.c, n.c) << a;
    EXPECT_EQ(p.s, -n.s) << a;
  }
}

TEST(TrigTest, MakeRotOfUnusableAngleIsIdentity) {
  for (float a : {NAN, INFINITY, -INFINITY, 2.0e5f, -1.0e30f}) {
    const Rot q = MakeRot(a);
    EXPECT_EQ(q.c, 1.0f) << a;
    EXPECT_EQ(q.s, 0.0f) << a;
  }
}

TEST(TrigTest, Atan2MatchesLibmOnCirclesOfManyRadii) {
  double max_error = 0.0;
  const int kSteps = 1 << 18;
  for (double radius : {1e-30, 1e-6, 0.5, 1.0, 3.0, 1e4, 1e30}) {
    for (int i = 0; i <= kSteps; ++i) {
      const double a = -M_PI + 2.0 * M_PI * i / kSteps;
      const float x = static_cast<float>(radius * std::cos(a));
      const float y = static_cast<float>(radius * std::sin(a));
      if (x == 0.0f && y == 0.0f) continue;  // underflowed to the origin
      const double expected = std::atan2(static_cast<double>(y), x);
      double diff = std::fabs(Atan2(y, x) - expected);
      // atan2(-0, x < 0) is -pi in libm and +pi here; same direction.
      if (y == 0.0f) diff = std::fmin(diff, std::fabs(diff - 2.0 * M_PI));
      max_error = std::fmax(max_error, diff);
    }
  }
  std::printf("Atan2 max error on circles: %.3g\n", max_error);
  EXPECT_LE(max_error, kAtan2MaxError);
}

TEST(TrigTest, Atan2MatchesLibmOnRandomPoints) {
  double max_error = 0.0;
  std::mt19937 rng(99);
  std::uniform_real_distribution<float> coord(-100.0f, 100.0f);
  for (int i = 0; i < 500000; ++i) {
    const float x = coord(rng);
    const float y = coord(rng);
    const double expected = std::atan2(static_cast<double>(y), x);
    max_error = std::fmax(max_error, std::fabs(Atan2(y, x) - expected));
  }
  std::printf("Atan2 max error on random points: %.3g\n", max_error);
  EXPECT_LE(max_error, kAtan2MaxError);
}

TEST(TrigTest, Atan2HandlesAxesAndZero) {
  EXPECT_EQ(Atan2(0.0f, 0.0f), 0.0f);
  EXPECT_EQ(Atan2(0.0f, 1.0f), 0.0f);
  EXPECT_NEAR(Atan2(1.0f, 0.0f), M_PI / 2.0, 1e-7);
  EXPECT_NEAR(Atan2(-1.0f, 0.0f), -M_PI / 2.0, 1e-7);
  EXPECT_NEAR(Atan2(0.0f, -1.0f), M_PI, 1e-7);
  // -0 maps to +pi: GetAngle promises (-pi, pi].
  EXPECT_GT(Atan2(-0.0f, -1.0f), 0.0f);
  EXPECT_EQ(Atan2(2.0f, INFINITY), 0.0f);
  EXPECT_TRUE(std::isnan(Atan2(NAN, 1.0f)));
}

TEST(TrigTest, GetAngleInvertsMakeRot) {
  double max_error = 0.0;
  for (int i = -100000; i <= 100000; ++i) {
    const float a = static_cast<float>(i * (M_PI / 100000.0));
    double diff = std::fabs(GetAngle(MakeRot(a)) - static_cast<double>(a));
    // -pi and pi are the same rotation.
    diff = std::fmin(diff, std::fabs(diff - 2.0 * M_PI));
    max_error = std::fmax(max_error, diff);
  }
  EXPECT_LE(max_error, kRotMaxError + kAtan2MaxError);
}

TEST(TrigTest, RelativeAngleOfQuarterTurns) {
  EXPECT_NEAR(RelativeAngle(MakeRot(0.25f), MakeRot(1.25f)), 1.0, 1e-6);
  EXPECT_NEAR(RelativeAngle(MakeRot(3.0f), MakeRot(-3.0f)),
              2.0 * M_PI - 6.0, 1e-6);
}

}  // namespace
}  // namespace atl
