// The wide solver's lanes (core/float4.h) must compute bit for bit what the
// same expression computes on floats, with SSE2 and with the portable
// fallback alike, signed zeros, infinities and NaNs included: that is what
// keeps the wide contact and joint solvers equal to scalar ones on every
// build.

#include "core/float4.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <limits>
#include <vector>

#include "atoll/math.h"
#include "atoll/random.h"

namespace atl {
namespace {

std::vector<float> Values() {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> v = {0.0f,  -0.0f, 1.0f,   -1.0f,      inf, -inf,
                          std::numeric_limits<float>::quiet_NaN(),
                          1e-40f, -1e-40f, 3.4e38f, -3.4e38f, 0.1f, 1.0f / 3.0f};
  Random rng(7);
  for (int i = 0; i < 200; ++i) v.push_back(rng.Uniform(-100.0f, 100.0f));
  return v;
}

uint32_t Bits(float x) { return std::bit_cast<uint32_t>(x); }

// Applies `wide` to four lanes of (a, b) at a time and checks every lane
// against `scalar`.
template <typename Wide, typename Scalar>
void ExpectLanewise(Wide wide, Scalar scalar) {
  const std::vector<float> v = Values();
  for (size_t i = 0; i + 3 < v.size(); i += 2) {
    for (size_t j = 0; j + 3 < v.size(); j += 7) {
      const float a[4] = {v[i], v[i + 1], v[i + 2], v[i + 3]};
      const float b[4] = {v[j], v[j + 3], v[j + 1], v[j + 2]};
      float out[4];
      wide(a, b, out);
      for (int k = 0; k < 4; ++k) {
        const float want = scalar(a[k], b[k]);
        ASSERT_EQ(Bits(out[k]), Bits(want))
            << "lane " << k << " of (" << a[k] << ", " << b[k] << ")";
      }
    }
  }
}

template <typename Impl>
void CheckImplementation() {
  using F4 = typename Impl::F4;
  ExpectLanewise([](const float* a, const float* b, float* o) {
    Impl::Store(o, Impl::Add(Impl::Load(a), Impl::Load(b)));
  }, [](float x, float y) { return x + y; });
  ExpectLanewise([](const float* a, const float* b, float* o) {
    Impl::Store(o, Impl::Sub(Impl::Load(a), Impl::Load(b)));
  }, [](float x, float y) { return x - y; });
  ExpectLanewise([](const float* a, const float* b, float* o) {
    Impl::Store(o, Impl::Mul(Impl::Load(a), Impl::Load(b)));
  }, [](float x, float y) { return x * y; });
  ExpectLanewise([](const float* a, const float* b, float* o) {
    Impl::Store(o, Impl::Div(Impl::Load(a), Impl::Load(b)));
  }, [](float x, float y) { return x / y; });
  ExpectLanewise([](const float* a, const float*, float* o) {
    Impl::Store(o, Impl::Sqrt(Impl::Load(a)));
  }, [](float x, float) { return Sqrt(x); });
  ExpectLanewise([](const float* a, const float*, float* o) {
    Impl::Store(o, Impl::Neg(Impl::Load(a)));
  }, [](float x, float) { return -x; });
  // Max, Min and Clamp of atoll/math.h, as selects and as Max4/Min4 (one
  // instruction each with SSE), and Clamp as the solver writes it.
  ExpectLanewise([](const float* a, const float* b, float* o) {
    const F4 x = Impl::Load(a), y = Impl::Load(b);
    Impl::Store(o, Impl::Select(Impl::Gt(x, y), x, y));
  }, [](float x, float y) { return Max(x, y); });
  ExpectLanewise([](const float* a, const float* b, float* o) {
    Impl::Store(o, Impl::Max(Impl::Load(a), Impl::Load(b)));
  }, [](float x, float y) { return Max(x, y); });
  ExpectLanewise([](const float* a, const float* b, float* o) {
    const F4 x = Impl::Load(a), y = Impl::Load(b);
    Impl::Store(o, Impl::Select(Impl::Lt(x, y), x, y));
  }, [](float x, float y) { return Min(x, y); });
  ExpectLanewise([](const float* a, const float* b, float* o) {
    Impl::Store(o, Impl::Min(Impl::Load(a), Impl::Load(b)));
  }, [](float x, float y) { return Min(x, y); });
  ExpectLanewise([](const float* a, const float* b, float* o) {
    const F4 x = Impl::Load(a), hi = Impl::Load(b), lo = Impl::Neg(hi);
    Impl::Store(o, Impl::Select(Impl::Lt(x, lo), lo, Impl::Min(hi, x)));
  }, [](float x, float y) { return Clamp(x, -y, y); });
  // Equality and negated masks (the restitution pass's conditions).
  ExpectLanewise([](const float* a, const float* b, float* o) {
    const F4 x = Impl::Load(a), y = Impl::Load(b);
    Impl::Store(o, Impl::Select(Impl::Not(Impl::Eq(x, y)), x, Impl::Splat(7.0f)));
  }, [](float x, float y) { return !(x == y) ? x : 7.0f; });
}

// Both implementations behind one interface for the checks above.
struct Portable {
  using F4 = float4_portable::Float4;
  static F4 Load(const float* p) { return float4_portable::Load4(p); }
  static void Store(float* p, F4 a) { float4_portable::Store4(p, a); }
  static F4 Splat(float x) { return float4_portable::Splat4(x); }
  static F4 Add(F4 a, F4 b) { return a + b; }
  static F4 Sub(F4 a, F4 b) { return a - b; }
  static F4 Mul(F4 a, F4 b) { return a * b; }
  static F4 Div(F4 a, F4 b) { return a / b; }
  static F4 Sqrt(F4 a) { return float4_portable::Sqrt4(a); }
  static F4 Neg(F4 a) { return -a; }
  static float4_portable::Mask4 Gt(F4 a, F4 b) { return a > b; }
  static float4_portable::Mask4 Lt(F4 a, F4 b) { return a < b; }
  static float4_portable::Mask4 Eq(F4 a, F4 b) { return a == b; }
  static float4_portable::Mask4 Not(float4_portable::Mask4 m) { return !m; }
  static F4 Select(float4_portable::Mask4 m, F4 a, F4 b) {
    return float4_portable::Select(m, a, b);
  }
  static F4 Max(F4 a, F4 b) { return float4_portable::Max4(a, b); }
  static F4 Min(F4 a, F4 b) { return float4_portable::Min4(a, b); }
};

TEST(Float4Test, PortableLanesEqualScalarFloats) { CheckImplementation<Portable>(); }

#if defined(__SSE2__)
struct Sse {
  using F4 = float4_sse::Float4;
  static F4 Load(const float* p) { return float4_sse::Load4(p); }
  static void Store(float* p, F4 a) { float4_sse::Store4(p, a); }
  static F4 Splat(float x) { return float4_sse::Splat4(x); }
  static F4 Add(F4 a, F4 b) { return a + b; }
  static F4 Sub(F4 a, F4 b) { return a - b; }
  static F4 Mul(F4 a, F4 b) { return a * b; }
  static F4 Div(F4 a, F4 b) { return a / b; }
  static F4 Sqrt(F4 a) { return float4_sse::Sqrt4(a); }
  static F4 Neg(F4 a) { return -a; }
  static float4_sse::Mask4 Gt(F4 a, F4 b) { return a > b; }
  static float4_sse::Mask4 Lt(F4 a, F4 b) { return a < b; }
  static float4_sse::Mask4 Eq(F4 a, F4 b) { return a == b; }
  static float4_sse::Mask4 Not(float4_sse::Mask4 m) { return !m; }
  static F4 Select(float4_sse::Mask4 m, F4 a, F4 b) { return float4_sse::Select(m, a, b); }
  static F4 Max(F4 a, F4 b) { return float4_sse::Max4(a, b); }
  static F4 Min(F4 a, F4 b) { return float4_sse::Min4(a, b); }
};

TEST(Float4Test, Sse2LanesEqualScalarFloats) { CheckImplementation<Sse>(); }
#endif

TEST(Float4Test, TransposeAndLaneMasks) {
  float rows[4][4];
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) rows[i][j] = static_cast<float>(10 * i + j);
  }
  Float4 r[4] = {Load4(rows[0]), Load4(rows[1]), Load4(rows[2]), Load4(rows[3])};
  Transpose4(&r[0], &r[1], &r[2], &r[3]);
  for (int i = 0; i < 4; ++i) {
    float out[4];
    Store4(out, r[i]);
    for (int j = 0; j < 4; ++j) EXPECT_EQ(out[j], rows[j][i]);
  }
  const uint8_t lanes[4] = {0, 1, 0, 1};
  const Mask4 m = MaskFromLanes(lanes);
  EXPECT_TRUE(AnyLane(m));
  float out[4];
  Store4(out, Select(m, Splat4(1.0f), Splat4(2.0f)));
  EXPECT_EQ(out[0], 2.0f);
  EXPECT_EQ(out[1], 1.0f);
  EXPECT_EQ(out[2], 2.0f);
  EXPECT_EQ(out[3], 1.0f);
  const uint8_t none[4] = {0, 0, 0, 0};
  EXPECT_FALSE(AnyLane(MaskFromLanes(none)));
}

}  // namespace
}  // namespace atl
