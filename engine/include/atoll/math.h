// Atoll — deterministic 2D rigid-body physics.
//
// The C++ namespace is `atl`, not `atoll`: glibc declares a global function
// ::atoll() in <stdlib.h>, and a namespace of the same name cannot coexist
// with it in any translation unit that includes the C library.
//
// Basic math types of the engine. Everything here is IEEE-754 single
// precision built from +, -, *, / and sqrt only (all correctly rounded), so
// the same inputs give the same bits on every x86-64 and AArch64 machine as
// long as the engine is compiled with -ffp-contract=off and without
// fast-math. Trigonometry comes from the engine's own approximations
// (MakeRot, Atan2), never from libm, whose results differ between libcs.

#ifndef ATOLL_MATH_H_
#define ATOLL_MATH_H_

#include <cmath>
#include <cstdint>
#include <limits>

namespace atl {

inline constexpr float kPi = 3.14159265359f;
/// Positive infinity, e.g. for "no limit" settings.
inline constexpr float kInfinity = std::numeric_limits<float>::infinity();

/// A 2D column vector.
struct Vec2 {
  float x = 0.0f;
  float y = 0.0f;
};

/// A rotation stored as its cosine/sine pair (a unit complex number).
struct Rot {
  float c = 1.0f;  ///< cosine
  float s = 0.0f;  ///< sine
};

/// A rigid transform: rotate by q, then translate by p.
struct Transform {
  Vec2 p;
  Rot q;
};

/// A 2x2 matrix stored by columns.
struct Mat22 {
  Vec2 cx;
  Vec2 cy;
};

/// An axis-aligned bounding box.
struct AABB {
  Vec2 lower;
  Vec2 upper;
};

// ---------------------------------------------------------------------------
// Scalars

/// True when x is neither NaN nor infinite.
inline bool IsFinite(float x) { return std::isfinite(x); }
inline float Min(float a, float b) { return a < b ? a : b; }
inline float Max(float a, float b) { return a > b ? a : b; }
inline float Abs(float a) { return a < 0.0f ? -a : a; }
inline float Clamp(float a, float lo, float hi) {
  return a < lo ? lo : (a > hi ? hi : a);
}
inline int32_t Min(int32_t a, int32_t b) { return a < b ? a : b; }
inline int32_t Max(int32_t a, int32_t b) { return a > b ? a : b; }

/// Square root; IEEE sqrt is correctly rounded and therefore deterministic.
inline float Sqrt(float x) { return std::sqrt(x); }

// ---------------------------------------------------------------------------
// Vec2

inline Vec2 operator+(Vec2 a, Vec2 b) { return {a.x + b.x, a.y + b.y}; }
inline Vec2 operator-(Vec2 a, Vec2 b) { return {a.x - b.x, a.y - b.y}; }
inline Vec2 operator-(Vec2 a) { return {-a.x, -a.y}; }
inline Vec2 operator*(float s, Vec2 v) { return {s * v.x, s * v.y}; }
inline Vec2 operator*(Vec2 v, float s) { return {s * v.x, s * v.y}; }
inline Vec2& operator+=(Vec2& a, Vec2 b) {
  a.x += b.x;
  a.y += b.y;
  return a;
}
inline Vec2& operator-=(Vec2& a, Vec2 b) {
  a.x -= b.x;
  a.y -= b.y;
  return a;
}
inline Vec2& operator*=(Vec2& a, float s) {
  a.x *= s;
  a.y *= s;
  return a;
}
inline bool operator==(Vec2 a, Vec2 b) { return a.x == b.x && a.y == b.y; }
inline bool operator!=(Vec2 a, Vec2 b) { return !(a == b); }

inline float Dot(Vec2 a, Vec2 b) { return a.x * b.x + a.y * b.y; }
/// The z component of the 3D cross product of (a, 0) and (b, 0).
inline float Cross(Vec2 a, Vec2 b) { return a.x * b.y - a.y * b.x; }
/// Cross of a vector with a scalar z axis: v x (0, 0, s).
inline Vec2 Cross(Vec2 v, float s) { return {s * v.y, -s * v.x}; }
/// Cross of a scalar z axis with a vector: (0, 0, s) x v.
inline Vec2 Cross(float s, Vec2 v) { return {-s * v.y, s * v.x}; }
/// v rotated by +90 degrees.
inline Vec2 LeftPerp(Vec2 v) { return {-v.y, v.x}; }
/// v rotated by -90 degrees.
inline Vec2 RightPerp(Vec2 v) { return {v.y, -v.x}; }
/// a + s * b, written out so the rounding is explicit (no fused multiply-add).
inline Vec2 MulAdd(Vec2 a, float s, Vec2 b) {
  return {a.x + s * b.x, a.y + s * b.y};
}
/// a - s * b.
inline Vec2 MulSub(Vec2 a, float s, Vec2 b) {
  return {a.x - s * b.x, a.y - s * b.y};
}
inline Vec2 Min(Vec2 a, Vec2 b) { return {Min(a.x, b.x), Min(a.y, b.y)}; }
inline Vec2 Max(Vec2 a, Vec2 b) { return {Max(a.x, b.x), Max(a.y, b.y)}; }
inline Vec2 Abs(Vec2 a) { return {Abs(a.x), Abs(a.y)}; }
inline Vec2 Lerp(Vec2 a, Vec2 b, float t) {
  return {(1.0f - t) * a.x + t * b.x, (1.0f - t) * a.y + t * b.y};
}
inline float LengthSquared(Vec2 v) { return v.x * v.x + v.y * v.y; }
inline float Length(Vec2 v) { return Sqrt(v.x * v.x + v.y * v.y); }
inline float DistanceSquared(Vec2 a, Vec2 b) { return LengthSquared(b - a); }
inline float Distance(Vec2 a, Vec2 b) { return Length(b - a); }
inline bool IsValid(Vec2 v) { return IsFinite(v.x) && IsFinite(v.y); }

/// Lengths below this are treated as zero when normalizing.
inline constexpr float kNormalizeEpsilon = 1.0e-12f;

/// v scaled to unit length, or the zero vector when v is (nearly) zero.
inline Vec2 Normalize(Vec2 v) {
  const float length = Length(v);
  if (length < kNormalizeEpsilon) return {0.0f, 0.0f};
  const float inv = 1.0f / length;
  return {inv * v.x, inv * v.y};
}

/// Normalizes v and returns its former length through *length.
inline Vec2 GetLengthAndNormalize(float* length, Vec2 v) {
  *length = Length(v);
  if (*length < kNormalizeEpsilon) return {0.0f, 0.0f};
  const float inv = 1.0f / *length;
  return {inv * v.x, inv * v.y};
}

// ---------------------------------------------------------------------------
// Rot

/// The rotation by `angle` radians, from the engine's deterministic
/// sine/cosine approximation (never libm). The result is normalized; each
/// component is within 2.0e-7 of the exact cosine/sine for |angle| <= 1e5
/// (docs/determinism.md, checked in tests). A non-finite angle or one with
/// |angle| > 1e5 returns the identity rotation.
Rot MakeRot(float angle);

/// The angle of `q` in (-pi, pi], from the engine's deterministic Atan2.
float GetAngle(Rot q);

/// Deterministic atan2(y, x) in [-pi, pi], within 3.5e-7 rad of the exact
/// value. atan2(0, 0) is 0; y == -0 with x < 0 gives +pi; NaN in, NaN out.
float Atan2(float y, float x);

inline bool IsValid(Rot q) {
  if (!IsFinite(q.c) || !IsFinite(q.s)) return false;
  const float len_sq = q.c * q.c + q.s * q.s;
  return len_sq > 0.99f && len_sq < 1.01f;
}

/// q renormalized to unit length.
inline Rot NormalizeRot(Rot q) {
  const float mag = Sqrt(q.c * q.c + q.s * q.s);
  const float inv = mag > 0.0f ? 1.0f / mag : 0.0f;
  return {q.c * inv, q.s * inv};
}

/// Advances q by the small angle `delta` (angular velocity * dt) without
/// trigonometry: adds the first-order rotation and renormalizes.
inline Rot IntegrateRotation(Rot q, float delta) {
  return NormalizeRot({q.c - delta * q.s, q.s + delta * q.c});
}

inline Vec2 RotateVector(Rot q, Vec2 v) {
  return {q.c * v.x - q.s * v.y, q.s * v.x + q.c * v.y};
}
inline Vec2 InvRotateVector(Rot q, Vec2 v) {
  return {q.c * v.x + q.s * v.y, -q.s * v.x + q.c * v.y};
}
/// The rotation q followed by r: r * q.
inline Rot MulRot(Rot q, Rot r) {
  return {q.c * r.c - q.s * r.s, q.s * r.c + q.c * r.s};
}
/// transpose(q) * r: the rotation r relative to q.
inline Rot InvMulRot(Rot q, Rot r) {
  return {q.c * r.c + q.s * r.s, q.c * r.s - q.s * r.c};
}
/// The angle of r relative to q, in (-pi, pi].
inline float RelativeAngle(Rot q, Rot r) { return GetAngle(InvMulRot(q, r)); }
inline bool operator==(Rot a, Rot b) { return a.c == b.c && a.s == b.s; }

// ---------------------------------------------------------------------------
// Transform

inline constexpr Transform kTransformIdentity = {{0.0f, 0.0f}, {1.0f, 0.0f}};

inline Vec2 TransformPoint(const Transform& t, Vec2 p) {
  return {(t.q.c * p.x - t.q.s * p.y) + t.p.x,
          (t.q.s * p.x + t.q.c * p.y) + t.p.y};
}
inline Vec2 InvTransformPoint(const Transform& t, Vec2 p) {
  const float vx = p.x - t.p.x;
  const float vy = p.y - t.p.y;
  return {t.q.c * vx + t.q.s * vy, -t.q.s * vx + t.q.c * vy};
}
/// a * b: apply b, then a.
inline Transform MulTransforms(const Transform& a, const Transform& b) {
  return {RotateVector(a.q, b.p) + a.p, MulRot(a.q, b.q)};
}
/// inverse(a) * b: b expressed in a's frame.
inline Transform InvMulTransforms(const Transform& a, const Transform& b) {
  return {InvRotateVector(a.q, b.p - a.p), InvMulRot(a.q, b.q)};
}
inline bool operator==(const Transform& a, const Transform& b) {
  return a.p == b.p && a.q == b.q;
}

// ---------------------------------------------------------------------------
// Mat22

inline Vec2 MulMV(const Mat22& m, Vec2 v) {
  return {m.cx.x * v.x + m.cy.x * v.y, m.cx.y * v.x + m.cy.y * v.y};
}

/// The inverse of m, or the zero matrix when m is singular.
inline Mat22 GetInverse(const Mat22& m) {
  const float a = m.cx.x, b = m.cy.x, c = m.cx.y, d = m.cy.y;
  float det = a * d - b * c;
  if (det != 0.0f) det = 1.0f / det;
  return {{det * d, -det * c}, {-det * b, det * a}};
}

/// Solves m * x = b for x; returns zero when m is singular.
inline Vec2 Solve22(const Mat22& m, Vec2 b) {
  const float a11 = m.cx.x, a12 = m.cy.x, a21 = m.cx.y, a22 = m.cy.y;
  float det = a11 * a22 - a12 * a21;
  if (det != 0.0f) det = 1.0f / det;
  return {det * (a22 * b.x - a12 * b.y), det * (a11 * b.y - a21 * b.x)};
}

// ---------------------------------------------------------------------------
// AABB

inline bool Overlaps(const AABB& a, const AABB& b) {
  return !(b.lower.x > a.upper.x || b.lower.y > a.upper.y ||
           a.lower.x > b.upper.x || a.lower.y > b.upper.y);
}
/// True when `a` fully contains `b`.
inline bool Contains(const AABB& a, const AABB& b) {
  return a.lower.x <= b.lower.x && a.lower.y <= b.lower.y &&
         b.upper.x <= a.upper.x && b.upper.y <= a.upper.y;
}
inline AABB Union(const AABB& a, const AABB& b) {
  return {Min(a.lower, b.lower), Max(a.upper, b.upper)};
}
inline Vec2 Center(const AABB& a) {
  return {0.5f * (a.lower.x + a.upper.x), 0.5f * (a.lower.y + a.upper.y)};
}
inline Vec2 Extents(const AABB& a) {
  return {0.5f * (a.upper.x - a.lower.x), 0.5f * (a.upper.y - a.lower.y)};
}
inline float Perimeter(const AABB& a) {
  return 2.0f * ((a.upper.x - a.lower.x) + (a.upper.y - a.lower.y));
}
/// `a` grown by `margin` on every side.
inline AABB Inflate(const AABB& a, float margin) {
  return {{a.lower.x - margin, a.lower.y - margin},
          {a.upper.x + margin, a.upper.y + margin}};
}
inline bool IsValid(const AABB& a) {
  return IsValid(a.lower) && IsValid(a.upper) && a.lower.x <= a.upper.x &&
         a.lower.y <= a.upper.y;
}
inline bool operator==(const AABB& a, const AABB& b) {
  return a.lower == b.lower && a.upper == b.upper;
}

}  // namespace atl

#endif  // ATOLL_MATH_H_
