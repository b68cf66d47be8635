// `atoll view` through the real binary: the web viewer on a built-in scene
// stepped in the CLI process (ticks advance, the page is served, SIGINT
// ends it) and on a recording file of a real server's world, played back
// with the recorded hash at every tick and open in the replay inspector
// (a seek to any tick gives the recorded hash, verification says ok).

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "absl/strings/str_format.h"
#include "atoll/client/recording_file.h"
#include "server/service_test_util.h"
#include "support/server_process.h"
#include "support/viewer_client.h"

namespace atl::testing {
namespace {

using ::testing::HasSubstr;

TEST(ViewCommandTest, ServesABuiltInSceneThatAdvances) {
  auto view = ServerProcess::StartProgram(
      {BinaryPath("atoll"), "view", "pyramid", "--size=4", "--listen=127.0.0.1:0"});
  ASSERT_TRUE(view.ok()) << view.status();
  const std::string address = (*view)->address();
  auto page = HttpRequest(address, "GET", "/");
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_EQ(page->status, 200);
  EXPECT_THAT(page->body, HasSubstr("<canvas"));
  auto list = HttpRequest(address, "GET", "/api/worlds");
  ASSERT_TRUE(list.ok()) << list.status();
  EXPECT_THAT(list->body, HasSubstr("\"id\":\"pyramid\""));
  EXPECT_THAT(list->body, HasSubstr("\"kind\":\"scene\""));
  auto events = ReadEvents(address, "/api/worlds/pyramid/stream", 10, absl::Seconds(10));
  ASSERT_TRUE(events.ok()) << events.status();
  ASSERT_EQ(events->size(), 10u);
  double last = -1;
  for (const StreamEvent& e : *events) {
    ASSERT_EQ(e.event, "frame");
    auto frame = ParseJson(e.data);
    ASSERT_TRUE(frame.ok()) << frame.status();
    EXPECT_GT(frame->fields().at("tick").number_value(), last);
    last = frame->fields().at("tick").number_value();
    // 10 boxes and the ground.
    EXPECT_EQ(frame->fields().at("bodies").list_value().values_size(), 11);
  }
  auto missing = HttpRequest(address, "GET", "/api/worlds/other/stream");
  ASSERT_TRUE(missing.ok());
  EXPECT_EQ(missing->status, 404);
  EXPECT_EQ((*view)->StopWith(SIGINT), 0);
}

TEST(ViewCommandTest, PlaysARecordingWithItsHashes) {
  // A real server's world, recorded for a while.
  auto server = ServerProcess::Start();
  ASSERT_TRUE(server.ok()) << server.status();
  v1::CreateWorldRequest request;
  request.set_world_id("taped");
  request.mutable_scene()->mutable_builtin()->set_name("pyramid");
  request.mutable_scene()->mutable_builtin()->set_size(4);
  CreateWorld((*server)->address(), request);
  absl::SleepFor(absl::Milliseconds(700));
  const v1::Recording recording = GetRecording((*server)->address(), "taped");
  ASSERT_GT(recording.ticks_size(), 20);
  std::map<uint64_t, uint64_t> recorded;
  for (const v1::RecordedTick& t : recording.ticks()) recorded[t.tick()] = t.state_hash();
  const std::string path =
      (std::filesystem::temp_directory_path() / absl::StrFormat("atoll_view_%d.atrec", getpid()))
          .string();
  ASSERT_TRUE(client::WriteRecordingFile(path, recording).ok());

  auto view = ServerProcess::StartProgram(
      {BinaryPath("atoll"), "view", path, "--listen=127.0.0.1:0"});
  ASSERT_TRUE(view.ok()) << view.status();
  auto list = HttpRequest((*view)->address(), "GET", "/api/worlds");
  ASSERT_TRUE(list.ok()) << list.status();
  EXPECT_THAT(list->body, HasSubstr("\"id\":\"taped\""));
  EXPECT_THAT(list->body, HasSubstr("\"kind\":\"recording\""));
  auto events =
      ReadEvents((*view)->address(), "/api/worlds/taped/stream", 8, absl::Seconds(10));
  ASSERT_TRUE(events.ok()) << events.status();
  ASSERT_EQ(events->size(), 8u);
  for (const StreamEvent& e : *events) {
    auto frame = ParseJson(e.data);
    ASSERT_TRUE(frame.ok()) << frame.status();
    const uint64_t tick = static_cast<uint64_t>(frame->fields().at("tick").number_value());
    ASSERT_TRUE(recorded.contains(tick)) << tick;
    EXPECT_EQ(frame->fields().at("hash").string_value(), absl::StrFormat("%016x", recorded[tick]));
    EXPECT_TRUE(frame->fields().at("hash_matches").bool_value());
  }
  // The replay inspector: seeks forward, back and forward again.
  for (uint64_t tick : {15u, 3u, 4u, 20u}) {
    auto reply = HttpRequest((*view)->address(), "GET",
                             absl::StrFormat("/api/recordings/taped/frame?tick=%d", tick));
    ASSERT_TRUE(reply.ok()) << reply.status();
    ASSERT_EQ(reply->status, 200) << reply->body;
    auto frame = ParseJson(reply->body);
    ASSERT_TRUE(frame.ok()) << frame.status();
    EXPECT_EQ(frame->fields().at("tick").number_value(), tick);
    EXPECT_EQ(frame->fields().at("hash").string_value(), absl::StrFormat("%016x", recorded[tick]));
  }
  auto verified =
      ReadEvents((*view)->address(), "/api/recordings/taped/verify", 1000, absl::Seconds(30));
  ASSERT_TRUE(verified.ok()) << verified.status();
  ASSERT_FALSE(verified->empty());
  EXPECT_EQ(verified->back().event, "result");
  EXPECT_THAT(verified->back().data, HasSubstr("\"ok\":true"));
  EXPECT_EQ((*view)->StopWith(SIGTERM), 0);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace atl::testing
