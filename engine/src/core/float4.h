// Atoll — four floats processed as one: the lanes of the wide solver loops
// (contacts, pins, body integration).
//
// Every operation here is one IEEE-754 single-precision operation per lane
// (add, subtract, multiply, divide, square root, compare, select, sign
// flip), so a lane computes bit for bit what the same expression computes
// on a float, and results do not depend on whether SSE2 or the portable
// fallback is compiled. Min4/Max4 are the engine's Min/Max (atoll/math.h),
// "a < b ? a : b" and "a > b ? a : b", which is exactly what SSE's
// minps/maxps compute, NaN and signed zeros included (the second operand
// when the comparison is false).

#ifndef ATOLL_CORE_FLOAT4_H_
#define ATOLL_CORE_FLOAT4_H_

#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace atl {

/// The same operations on plain arrays, lane by lane: what builds without
/// SSE2 use, and what the tests hold the SSE2 version to.
namespace float4_portable {

struct Float4 {
  float v[4];
};
struct Mask4 {
  bool v[4];
};

namespace internal {
template <typename T, typename F>
T Lanes(F f) {
  return {{f(0), f(1), f(2), f(3)}};
}
}  // namespace internal

inline Float4 Splat4(float x) { return {{x, x, x, x}}; }
inline Float4 Load4(const float* p) { return {{p[0], p[1], p[2], p[3]}}; }
inline void Store4(float* p, Float4 a) { std::memcpy(p, a.v, sizeof(a.v)); }
inline Float4 operator+(Float4 a, Float4 b) {
  return internal::Lanes<Float4>([&](int i) { return a.v[i] + b.v[i]; });
}
inline Float4 operator-(Float4 a, Float4 b) {
  return internal::Lanes<Float4>([&](int i) { return a.v[i] - b.v[i]; });
}
inline Float4 operator*(Float4 a, Float4 b) {
  return internal::Lanes<Float4>([&](int i) { return a.v[i] * b.v[i]; });
}
inline Float4 operator/(Float4 a, Float4 b) {
  return internal::Lanes<Float4>([&](int i) { return a.v[i] / b.v[i]; });
}
inline Float4 Sqrt4(Float4 a) {
  return internal::Lanes<Float4>([&](int i) { return std::sqrt(a.v[i]); });
}
inline Float4 operator-(Float4 a) {
  return internal::Lanes<Float4>([&](int i) { return -a.v[i]; });
}
inline Mask4 operator<(Float4 a, Float4 b) {
  return internal::Lanes<Mask4>([&](int i) { return a.v[i] < b.v[i]; });
}
inline Mask4 operator>(Float4 a, Float4 b) {
  return internal::Lanes<Mask4>([&](int i) { return a.v[i] > b.v[i]; });
}
inline Mask4 operator==(Float4 a, Float4 b) {
  return internal::Lanes<Mask4>([&](int i) { return a.v[i] == b.v[i]; });
}
inline Mask4 operator||(Mask4 a, Mask4 b) {
  return internal::Lanes<Mask4>([&](int i) { return a.v[i] || b.v[i]; });
}
inline Mask4 operator&&(Mask4 a, Mask4 b) {
  return internal::Lanes<Mask4>([&](int i) { return a.v[i] && b.v[i]; });
}
inline Mask4 operator!(Mask4 a) {
  return internal::Lanes<Mask4>([&](int i) { return !a.v[i]; });
}
inline Float4 Select(Mask4 m, Float4 a, Float4 b) {
  return internal::Lanes<Float4>([&](int i) { return m.v[i] ? a.v[i] : b.v[i]; });
}
inline Float4 Min4(Float4 a, Float4 b) {
  return internal::Lanes<Float4>([&](int i) { return a.v[i] < b.v[i] ? a.v[i] : b.v[i]; });
}
inline Float4 Max4(Float4 a, Float4 b) {
  return internal::Lanes<Float4>([&](int i) { return a.v[i] > b.v[i] ? a.v[i] : b.v[i]; });
}
inline Mask4 MaskFromLanes(const uint8_t flags[4]) {
  return internal::Lanes<Mask4>([&](int i) { return flags[i] != 0; });
}
inline bool AnyLane(Mask4 m) { return m.v[0] || m.v[1] || m.v[2] || m.v[3]; }
inline void Transpose4(Float4* r0, Float4* r1, Float4* r2, Float4* r3) {
  Float4* rows[4] = {r0, r1, r2, r3};
  float m[4][4];
  for (int i = 0; i < 4; ++i) std::memcpy(m[i], rows[i]->v, sizeof(m[i]));
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) rows[i]->v[j] = m[j][i];
  }
}

}  // namespace float4_portable

#if defined(__SSE2__)
namespace float4_sse {

struct Float4 {
  __m128 v;
};
/// A per-lane condition (all bits set where true).
struct Mask4 {
  __m128 v;
};

inline Float4 Splat4(float x) { return {_mm_set1_ps(x)}; }
inline Float4 Load4(const float* p) { return {_mm_loadu_ps(p)}; }
inline void Store4(float* p, Float4 a) { _mm_storeu_ps(p, a.v); }
inline Float4 operator+(Float4 a, Float4 b) { return {_mm_add_ps(a.v, b.v)}; }
inline Float4 operator-(Float4 a, Float4 b) { return {_mm_sub_ps(a.v, b.v)}; }
inline Float4 operator*(Float4 a, Float4 b) { return {_mm_mul_ps(a.v, b.v)}; }
/// Correctly rounded, like a float division.
inline Float4 operator/(Float4 a, Float4 b) { return {_mm_div_ps(a.v, b.v)}; }
/// Correctly rounded, like std::sqrt on a float (atoll/math.h's Sqrt).
inline Float4 Sqrt4(Float4 a) { return {_mm_sqrt_ps(a.v)}; }
/// Flips the sign bit, like unary minus on a float.
inline Float4 operator-(Float4 a) { return {_mm_xor_ps(a.v, _mm_set1_ps(-0.0f))}; }
inline Mask4 operator<(Float4 a, Float4 b) { return {_mm_cmplt_ps(a.v, b.v)}; }
inline Mask4 operator>(Float4 a, Float4 b) { return {_mm_cmpgt_ps(a.v, b.v)}; }
inline Mask4 operator==(Float4 a, Float4 b) { return {_mm_cmpeq_ps(a.v, b.v)}; }
inline Mask4 operator||(Mask4 a, Mask4 b) { return {_mm_or_ps(a.v, b.v)}; }
inline Mask4 operator&&(Mask4 a, Mask4 b) { return {_mm_and_ps(a.v, b.v)}; }
inline Mask4 operator!(Mask4 a) { return {_mm_xor_ps(a.v, _mm_castsi128_ps(_mm_set1_epi32(-1)))}; }
/// m ? a : b per lane.
inline Float4 Select(Mask4 m, Float4 a, Float4 b) {
  return {_mm_or_ps(_mm_and_ps(m.v, a.v), _mm_andnot_ps(m.v, b.v))};
}
/// a < b ? a : b per lane (minps returns its second operand unless a < b).
inline Float4 Min4(Float4 a, Float4 b) { return {_mm_min_ps(a.v, b.v)}; }
/// a > b ? a : b per lane (maxps returns its second operand unless a > b).
inline Float4 Max4(Float4 a, Float4 b) { return {_mm_max_ps(a.v, b.v)}; }
/// True where lane i of `flags` is non-zero.
inline Mask4 MaskFromLanes(const uint8_t flags[4]) {
  const __m128i bits =
      _mm_set_epi32(flags[3] ? -1 : 0, flags[2] ? -1 : 0, flags[1] ? -1 : 0, flags[0] ? -1 : 0);
  return {_mm_castsi128_ps(bits)};
}
inline bool AnyLane(Mask4 m) { return _mm_movemask_ps(m.v) != 0; }
/// Transposes four rows of four floats (rows become lanes).
inline void Transpose4(Float4* r0, Float4* r1, Float4* r2, Float4* r3) {
  _MM_TRANSPOSE4_PS(r0->v, r1->v, r2->v, r3->v);
}

}  // namespace float4_sse
namespace float4_impl = float4_sse;
#else
namespace float4_impl = float4_portable;
#endif

using float4_impl::AnyLane;
using float4_impl::Float4;
using float4_impl::Load4;
using float4_impl::Mask4;
using float4_impl::MaskFromLanes;
using float4_impl::Max4;
using float4_impl::Min4;
using float4_impl::Select;
using float4_impl::Splat4;
using float4_impl::Sqrt4;
using float4_impl::Store4;
using float4_impl::Transpose4;

}  // namespace atl

#endif  // ATOLL_CORE_FLOAT4_H_
