#include "state/byte_io.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace atl {
namespace {

// The same fields through the checked writer's BeginRecord/EndRecord and
// through PutRecord's unchecked cursor: the snapshot format (and so every
// state hash) must not depend on which one wrote a record.
TEST(ByteIoTest, PutRecordWritesTheBytesOfBeginAndEndRecord) {
  const std::vector<int32_t> ids = {7, -1, 42};
  const std::vector<int32_t> none;
  std::string checked;
  {
    BufferWriter w(&checked, 0);
    w.BeginRecord(0x03000005u);
    w.Put<uint8_t>(9);
    w.PutBool(true);
    w.PutVec({1.5f, -2.0f});
    w.PutRot({0.6f, 0.8f});
    w.PutArray(ids);
    w.PutArray(none);
    w.Put<uint64_t>(0x0102030405060708ull);
    w.EndRecord();
    w.Finish();
  }
  std::string raw;
  {
    BufferWriter w(&raw, 0);
    w.PutRecord(0x03000005u, 64, [&](RawWriter r) {
      r.Put<uint8_t>(9);
      r.PutBool(true);
      r.PutVec({1.5f, -2.0f});
      r.PutRot({0.6f, 0.8f});
      r.PutArray(ids);
      r.PutArray(none);
      r.Put<uint64_t>(0x0102030405060708ull);
      return r;
    });
    w.Finish();
  }
  EXPECT_EQ(raw, checked);
  // key, length, then 1 + 1 + 8 + 8 + (4 + 12) + 4 + 8 bytes.
  ASSERT_EQ(checked.size(), 8u + 46u);
  uint32_t length = 0;
  std::memcpy(&length, checked.data() + 4, 4);
  EXPECT_EQ(length, 46u);
}

// A record that does not fit the buffer's room grows it first, keeping what
// was written before.
TEST(ByteIoTest, PutRecordGrowsTheBuffer) {
  std::string out;
  BufferWriter w(&out, 0);
  w.Put<uint32_t>(0xdeadbeefu);
  const std::vector<uint32_t> many(10000, 5u);
  w.PutRecord(1u, 4 + many.size() * 4, [&](RawWriter r) {
    r.PutArray(many);
    return r;
  });
  w.Finish();
  ASSERT_EQ(out.size(), 4u + 8u + 4u + 40000u);
  uint32_t first = 0, last = 0;
  std::memcpy(&first, out.data(), 4);
  std::memcpy(&last, out.data() + out.size() - 4, 4);
  EXPECT_EQ(first, 0xdeadbeefu);
  EXPECT_EQ(last, 5u);
}

// A record that writes past its bound is a bug in the bound: the writer
// stops the process rather than go on past memory it may have overrun.
TEST(ByteIoDeathTest, PutRecordPastItsBoundAborts) {
  EXPECT_DEATH(
      {
        std::string out;
        BufferWriter w(&out, 0);
        w.PutRecord(0x0b000002u, 4, [](RawWriter r) {
          r.Put<uint64_t>(1);
          return r;
        });
      },
      "record 0b000002 wrote 8 bytes, past its bound of 4");
}

}  // namespace
}  // namespace atl
