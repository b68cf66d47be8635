// Atoll — the contact passes eight lanes at a time, two groups of one colour
// side by side, where the CPU has AVX (engine/CMakeLists.txt compiles this
// file with -mavx on x86-64; the solver calls it only after checking the
// CPU, contact_solver.h's WideContactsEnabled).
//
// The kernels are contact_kernels.h's, the same source as the four-lane
// passes, so every lane runs the same single-precision operations in the
// same order: AVX's add, subtract, multiply, min, max, compare and the bit
// operations round and choose exactly as SSE's do, and -ffp-contract=off
// keeps products and sums apart (AVX without FMA has no fused form anyway).
// Two groups whose lanes differ in which manifold points some lane has
// (the four-lane pass skips a point no lane of its group has; solving it
// with zeroes could flip the sign of a zero velocity) go through the
// masked kernels: the point is solved in all eight lanes and its writes
// undone in the four of the group that skips it (contact_kernels.h).
//
// Everything compiled here is either in an unnamed namespace or always
// inlined, apart from the entry points contact_solver.h declares: no out-of-line
// copy of a shared inline function built with AVX can reach the linker and
// replace the one the rest of the engine calls on a CPU without it.

#include "dynamics/contact_solver.h"

#if defined(__AVX__)
#include <immintrin.h>

#include "dynamics/contact_kernels.h"
#endif

namespace atl {

#if defined(__AVX__)
namespace {

struct Float8 {
  __m256 v;
};
struct Mask8 {
  __m256 v;
};

ATOLL_INLINE Float8 operator+(Float8 a, Float8 b) { return {_mm256_add_ps(a.v, b.v)}; }
ATOLL_INLINE Float8 operator-(Float8 a, Float8 b) { return {_mm256_sub_ps(a.v, b.v)}; }
ATOLL_INLINE Float8 operator*(Float8 a, Float8 b) { return {_mm256_mul_ps(a.v, b.v)}; }
ATOLL_INLINE Float8 operator-(Float8 a) { return {_mm256_xor_ps(a.v, _mm256_set1_ps(-0.0f))}; }
// cmpltps and cmpgtps: ordered, false where either is NaN.
ATOLL_INLINE Mask8 operator<(Float8 a, Float8 b) { return {_mm256_cmp_ps(a.v, b.v, _CMP_LT_OS)}; }
ATOLL_INLINE Mask8 operator>(Float8 a, Float8 b) { return {_mm256_cmp_ps(a.v, b.v, _CMP_GT_OS)}; }
ATOLL_INLINE Mask8 operator||(Mask8 a, Mask8 b) { return {_mm256_or_ps(a.v, b.v)}; }
ATOLL_INLINE Mask8 operator&&(Mask8 a, Mask8 b) { return {_mm256_and_ps(a.v, b.v)}; }

ATOLL_INLINE __m256 Combine(__m128 lo, __m128 hi) {
  return _mm256_insertf128_ps(_mm256_castps128_ps256(lo), hi, 1);
}

// The bodies of one side of the two groups, SolverBody's fields as columns.
struct Bodies8 {
  Float8 vx, vy, w, pushed;
  Float8 dpx, dpy, qc, qs;
};

// Rows r[0..7] (eight floats each) become columns.
ATOLL_INLINE void Transpose8(__m256 r[8]) {
  const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
  const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
  const __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
  const __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
  const __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
  const __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
  const __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
  const __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
  r[0] = _mm256_permute2f128_ps(u0, u4, 0x20);
  r[1] = _mm256_permute2f128_ps(u1, u5, 0x20);
  r[2] = _mm256_permute2f128_ps(u2, u6, 0x20);
  r[3] = _mm256_permute2f128_ps(u3, u7, 0x20);
  r[4] = _mm256_permute2f128_ps(u0, u4, 0x31);
  r[5] = _mm256_permute2f128_ps(u1, u5, 0x31);
  r[6] = _mm256_permute2f128_ps(u2, u6, 0x31);
  r[7] = _mm256_permute2f128_ps(u3, u7, 0x31);
}

// Rows r[0..3] become columns within each 128-bit half (a 4x4 transpose
// of the low halves and one of the high halves).
ATOLL_INLINE void TransposeHalves(__m256 r[4]) {
  const __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
  const __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
  r[0] = _mm256_shuffle_ps(t0, t2, 0x44);
  r[1] = _mm256_shuffle_ps(t0, t2, 0xEE);
  r[2] = _mm256_shuffle_ps(t1, t3, 0x44);
  r[3] = _mm256_shuffle_ps(t1, t3, 0xEE);
}

// Eight lanes over two groups: lanes 0-3 are the first's, 4-7 the second's.
struct Lanes8 {
  using F = Float8;
  using M = Mask8;
  using B = Bodies8;
  static ATOLL_INLINE F Splat(float x) { return {_mm256_set1_ps(x)}; }
  static ATOLL_INLINE F Max(F a, F b) { return {_mm256_max_ps(a.v, b.v)}; }
  static ATOLL_INLINE F Min(F a, F b) { return {_mm256_min_ps(a.v, b.v)}; }
  static ATOLL_INLINE F Select(M m, F a, F b) {
    return {_mm256_or_ps(_mm256_and_ps(m.v, a.v), _mm256_andnot_ps(m.v, b.v))};
  }

  ATOLL_INLINE F Load(const float (ContactGroup::*field)[4]) const {
    return {Combine(_mm_loadu_ps(g0->*field), _mm_loadu_ps(g1->*field))};
  }
  ATOLL_INLINE F LoadPoint(int32_t j, const float (ContactGroup::Points::*field)[4]) const {
    return {Combine(_mm_loadu_ps(g0->points[j].*field), _mm_loadu_ps(g1->points[j].*field))};
  }
  ATOLL_INLINE void StorePoint(int32_t j, float (ContactGroup::Points::*field)[4], F v) const {
    _mm_storeu_ps(g0->points[j].*field, _mm256_castps256_ps128(v.v));
    _mm_storeu_ps(g1->points[j].*field, _mm256_extractf128_ps(v.v, 1));
  }
  ATOLL_INLINE M MaskOf(const uint8_t (ContactGroup::*field)[4]) const {
    const uint8_t* a = g0->*field;
    const uint8_t* b = g1->*field;
    return {_mm256_castsi256_ps(_mm256_set_epi32(
        b[3] ? -1 : 0, b[2] ? -1 : 0, b[1] ? -1 : 0, b[0] ? -1 : 0, a[3] ? -1 : 0,
        a[2] ? -1 : 0, a[1] ? -1 : 0, a[0] ? -1 : 0))};
  }
  ATOLL_INLINE const int32_t* Index(const ContactGroup* g, int side) const {
    return side == 0 ? g->index_a : g->index_b;
  }
  ATOLL_INLINE void Gather(const SolverBody* bodies, int side, B* b) const {
    const int32_t* i0 = Index(g0, side);
    const int32_t* i1 = Index(g1, side);
    __m256 r[8];
    for (int k = 0; k < 4; ++k) {
      r[k] = _mm256_loadu_ps(reinterpret_cast<const float*>(bodies + i0[k]));
      r[k + 4] = _mm256_loadu_ps(reinterpret_cast<const float*>(bodies + i1[k]));
    }
    Transpose8(r);
    *b = {{r[0]}, {r[1]}, {r[2]}, {r[3]}, {r[4]}, {r[5]}, {r[6]}, {r[7]}};
  }
  // Row k holds body k of the first group in its low half and body k of
  // the second in its high half; a transpose within each half turns the
  // rows into the velocity columns of all eight lanes.
  ATOLL_INLINE void GatherVelocities(const SolverBody* bodies, int side, B* b) const {
    const int32_t* i0 = Index(g0, side);
    const int32_t* i1 = Index(g1, side);
    __m256 r[4];
    for (int k = 0; k < 4; ++k) {
      r[k] = Combine(_mm_loadu_ps(reinterpret_cast<const float*>(bodies + i0[k])),
                     _mm_loadu_ps(reinterpret_cast<const float*>(bodies + i1[k])));
    }
    TransposeHalves(r);
    b->vx = {r[0]};
    b->vy = {r[1]};
    b->w = {r[2]};
    b->pushed = {r[3]};
  }
  // The velocities of the bodies the constraints move; the passes change
  // nothing else.
  ATOLL_INLINE void Scatter(SolverBody* bodies, int side, const B& b) const {
    __m256 r[4] = {b.vx.v, b.vy.v, b.w.v, b.pushed.v};
    TransposeHalves(r);
    const int32_t* i0 = Index(g0, side);
    const int32_t* i1 = Index(g1, side);
    const uint8_t* m0 = side == 0 ? g0->moves_a : g0->moves_b;
    const uint8_t* m1 = side == 0 ? g1->moves_a : g1->moves_b;
    for (int k = 0; k < 4; ++k) {
      if (m0[k] != 0) {
        _mm_storeu_ps(reinterpret_cast<float*>(bodies + i0[k]), _mm256_castps256_ps128(r[k]));
      }
      if (m1[k] != 0) {
        _mm_storeu_ps(reinterpret_cast<float*>(bodies + i1[k]), _mm256_extractf128_ps(r[k], 1));
      }
    }
  }

  ContactGroup* g0;
  ContactGroup* g1;
};

// Which points of groups a and b go through the kernels (`any_point`: some
// lane of either has it), and whether the two groups need no mask: the
// same points present in some lane of each (see the file comment). If
// not, `point_lanes[j]` holds the lanes of the group that has point j.
ATOLL_INLINE bool Paired(const ContactGroup& a, const ContactGroup& b, bool any_point[2],
                         Mask8 point_lanes[2]) {
  bool in_a[2], in_b[2];
  AnyPoints(a, in_a);
  AnyPoints(b, in_b);
  any_point[0] = in_a[0] || in_b[0];
  any_point[1] = in_a[1] || in_b[1];
  if (in_a[0] == in_b[0] && in_a[1] == in_b[1]) return true;
  for (int32_t j = 0; j < 2; ++j) {
    const int32_t lo = in_a[j] ? -1 : 0, hi = in_b[j] ? -1 : 0;
    point_lanes[j] = {_mm256_castsi256_ps(_mm256_set_epi32(hi, hi, hi, hi, lo, lo, lo, lo))};
  }
  return false;
}

}  // namespace

bool CompiledWithAvx() { return true; }

void WarmStartContactRange(ContactGroup* groups, int32_t begin, int32_t end,
                           SolverBody* bodies) {
  int32_t g = begin;
  for (; g + 1 < end; g += 2) {
    bool any_point[2];
    Mask8 point_lanes[2];
    const Lanes8 lanes{&groups[g], &groups[g + 1]};
    if (Paired(groups[g], groups[g + 1], any_point, point_lanes)) {
      contact_kernels::WarmStart(lanes, any_point, bodies);
    } else {
      contact_kernels::WarmStart<Lanes8, true>(lanes, any_point, bodies, point_lanes);
    }
  }
  if (g < end) WarmStartContacts(groups[g], bodies);
}

void SolveContactRange(ContactGroup* groups, int32_t begin, int32_t end, SolverBody* bodies,
                       const Softness& softness, float inv_h, bool use_bias) {
  int32_t g = begin;
  for (; g + 1 < end; g += 2) {
    bool any_point[2];
    Mask8 point_lanes[2];
    const Lanes8 lanes{&groups[g], &groups[g + 1]};
    if (Paired(groups[g], groups[g + 1], any_point, point_lanes)) {
      contact_kernels::Solve(lanes, any_point, bodies, softness, inv_h, use_bias);
    } else {
      contact_kernels::Solve<Lanes8, true>(lanes, any_point, bodies, softness, inv_h, use_bias,
                                           point_lanes);
    }
  }
  if (g < end) SolveContacts(&groups[g], bodies, softness, inv_h, use_bias);
}

#else  // no AVX: four lanes at a time

bool CompiledWithAvx() { return false; }

void WarmStartContactRange(ContactGroup* groups, int32_t begin, int32_t end,
                           SolverBody* bodies) {
  for (int32_t g = begin; g < end; ++g) WarmStartContacts(groups[g], bodies);
}

void SolveContactRange(ContactGroup* groups, int32_t begin, int32_t end, SolverBody* bodies,
                       const Softness& softness, float inv_h, bool use_bias) {
  for (int32_t g = begin; g < end; ++g) SolveContacts(&groups[g], bodies, softness, inv_h, use_bias);
}

#endif

}  // namespace atl
