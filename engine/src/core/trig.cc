// Deterministic trigonometry: MakeRot (sine/cosine), Atan2 and GetAngle.
//
// libm's sinf/cosf/atan2f differ between C libraries and versions, so a
// simulation that called them could diverge between a Linux server and a
// client built elsewhere. Everything below uses only +, -, *, / and integer
// conversions, each correctly rounded under IEEE-754 with
// -ffp-contract=off, so the results are bit-identical on every conforming
// machine and compiler.
//
// Accuracy (measured by tests/engine/core/trig_test.cc against double
// precision libm over a dense sweep; the bounds are asserted there and
// repeated in docs/determinism.md):
//   MakeRot:  each of c, s within 2.0e-7 of the exact cosine and sine of a,
//             for |a| <= 1e5 rad.
//   Atan2:    within 3.5e-7 rad of the exact arctangent for all finite
//             inputs.

#include <cstdint>

#include "atoll/math.h"

namespace atl {
namespace {

// pi/2 split into three 8-bit chunks plus a remainder (Cody-Waite
// reduction). Each chunk has 8 significant bits, so k * chunk is exact in
// single precision for every |k| < 2^16; subtracting the chunks one at a
// time therefore reduces the angle with an error of about k * 2^-48 instead
// of the ~|a| * 2^-24 a single float pi/2 would cost.
constexpr float kHalfPi1 = 1.5703125f;                 // 201 / 2^7
constexpr float kHalfPi2 = 4.825592041015625e-4f;      // 253 / 2^19
constexpr float kHalfPi3 = 1.2665987014770508e-6f;     // 85 / 2^26
constexpr float kHalfPi4 = 9.920935796805404e-10f;     // the rest
constexpr float kTwoOverPi = 0.636619772367581343f;

// Beyond this the quadrant index would exceed 2^16 and the chunk products
// stop being exact; a float this large is also spaced more than 0.007 rad
// apart, so the angle carries no usable orientation anyway.
constexpr float kMaxReducibleAngle = 1.0e5f;

// Taylor coefficients 1/n! (alternating signs applied below). On the reduced
// interval |r| <= pi/4 the first omitted terms, r^11/11! for sine and
// r^12/12! for cosine, are below 2e-9, far under float resolution, so the
// error is dominated by rounding in the evaluation.
constexpr float kInvFact3 = 1.0f / 6.0f;
constexpr float kInvFact5 = 1.0f / 120.0f;
constexpr float kInvFact7 = 1.0f / 5040.0f;
constexpr float kInvFact9 = 1.0f / 362880.0f;
constexpr float kInvFact2 = 0.5f;
constexpr float kInvFact4 = 1.0f / 24.0f;
constexpr float kInvFact6 = 1.0f / 720.0f;
constexpr float kInvFact8 = 1.0f / 40320.0f;
constexpr float kInvFact10 = 1.0f / 3628800.0f;

// The arctangent of t in [0, 1] is first reduced to |u| <= 0.268 (the
// tangent of pi/12) by the identity
//   arctan t = pi/6 + arctan u,  u = (sqrt3 t - 1) / (sqrt3 + t);
// on that interval the Taylor series u - u^3/3 + ... - u^11/11 has a
// truncation error below u^13/13 < 3e-9.
constexpr float kTanPiOver12 = 0.267949192431122706f;
constexpr float kSqrt3 = 1.73205080756887729f;
constexpr float kPiOver6 = 0.523598775598298873f;
constexpr float kHalfPi = 1.57079632679489662f;

float SinPoly(float r) {
  const float z = r * r;
  const float p =
      -kInvFact3 + z * (kInvFact5 + z * (-kInvFact7 + z * kInvFact9));
  return r + r * z * p;
}

float CosPoly(float r) {
  const float z = r * r;
  const float p =
      kInvFact4 + z * (-kInvFact6 + z * (kInvFact8 - z * kInvFact10));
  return (1.0f - kInvFact2 * z) + z * z * p;
}

float AtanPoly(float u) {
  const float z = u * u;
  const float p =
      -1.0f / 3.0f +
      z * (1.0f / 5.0f +
           z * (-1.0f / 7.0f + z * (1.0f / 9.0f + z * (-1.0f / 11.0f))));
  return u + u * z * p;
}

// The arctangent of t in [0, 1].
float AtanUnit(float t) {
  if (t <= kTanPiOver12) return AtanPoly(t);
  const float u = (kSqrt3 * t - 1.0f) / (kSqrt3 + t);
  return kPiOver6 + AtanPoly(u);
}

}  // namespace

Rot MakeRot(float angle) {
  // The comparison is false for NaN as well.
  if (!(Abs(angle) <= kMaxReducibleAngle)) return Rot{1.0f, 0.0f};

  // Nearest quadrant index; rounding by truncation of x +/- 0.5 is exact
  // integer arithmetic once converted.
  const float q = angle * kTwoOverPi;
  const int32_t k = static_cast<int32_t>(q < 0.0f ? q - 0.5f : q + 0.5f);
  const float kf = static_cast<float>(k);
  float r = angle - kf * kHalfPi1;
  r -= kf * kHalfPi2;
  r -= kf * kHalfPi3;
  r -= kf * kHalfPi4;

  const float s = SinPoly(r);
  const float c = CosPoly(r);
  Rot out;
  switch (k & 3) {  // two's complement: k & 3 is k mod 4 for negative k too
    case 0:
      out = {c, s};
      break;
    case 1:
      out = {-s, c};
      break;
    case 2:
      out = {-c, -s};
      break;
    default:
      out = {s, -c};
      break;
  }
  return NormalizeRot(out);
}

float Atan2(float y, float x) {
  if (x == 0.0f && y == 0.0f) return 0.0f;
  const float ax = Abs(x);
  const float ay = Abs(y);
  // Fold into the first octant so the polynomial only sees [0, 1].
  const bool swapped = ay > ax;
  const float t = swapped ? ax / ay : ay / ax;
  float a = AtanUnit(t);
  if (swapped) a = kHalfPi - a;
  if (x < 0.0f) a = kPi - a;
  // y == -0 deliberately maps to +pi so GetAngle stays in (-pi, pi].
  if (y < 0.0f) a = -a;
  return a;
}

float GetAngle(Rot q) { return Atan2(q.s, q.c); }

}  // namespace atl
