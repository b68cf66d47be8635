// The web viewer of atoll-server (--http_listen) through the real binary:
// the page and its script, the world list naming a created world, a frame
// stream whose ticks advance and whose hash and bodies equal a local
// re-simulation of the same scene, the read-only and 404 answers, and a bad
// --http_listen refused as a usage error.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_format.h"
#include "atoll/server/simulation.h"
#include "server/service_test_util.h"
#include "support/server_process.h"
#include "support/viewer_client.h"

namespace atl::testing {
namespace {

using ::testing::HasSubstr;

class WebViewerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto server = ServerProcess::Start({"--http_listen=127.0.0.1:0"});
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    auto url = server_->WaitForLine("atoll-server viewer at ");
    ASSERT_TRUE(url.ok()) << url.status();
    url_ = *url;
  }

  // A pyramid world with no players: its ticks have no inputs.
  v1::SceneSpec CreatePyramid(const std::string& id) {
    v1::CreateWorldRequest request;
    request.set_world_id(id);
    request.mutable_scene()->mutable_builtin()->set_name("pyramid");
    request.mutable_scene()->mutable_builtin()->set_size(5);
    CreateWorld(server_->address(), request);
    return request.scene();
  }

  std::unique_ptr<ServerProcess> server_;
  std::string url_;
};

TEST_F(WebViewerTest, ServesThePageAndItsScript) {
  auto page = HttpRequest(url_, "GET", "/");
  ASSERT_TRUE(page.ok()) << page.status();
  EXPECT_EQ(page->status, 200);
  EXPECT_THAT(page->content_type, HasSubstr("text/html"));
  EXPECT_THAT(page->body, HasSubstr("<canvas id=\"canvas\""));
  EXPECT_THAT(page->body, HasSubstr("/viewer.js"));
  auto script = HttpRequest(url_, "GET", "/viewer.js");
  ASSERT_TRUE(script.ok()) << script.status();
  EXPECT_EQ(script->status, 200);
  EXPECT_THAT(script->content_type, HasSubstr("javascript"));
  EXPECT_THAT(script->body, HasSubstr("EventSource"));
  auto head = HttpRequest(url_, "HEAD", "/viewer.css");
  ASSERT_TRUE(head.ok()) << head.status();
  EXPECT_EQ(head->status, 200);
  EXPECT_EQ(head->body, "");
}

TEST_F(WebViewerTest, WorldListNamesTheCreatedWorld) {
  CreatePyramid("viewed");
  auto list = HttpRequest(url_, "GET", "/api/worlds");
  ASSERT_TRUE(list.ok()) << list.status();
  EXPECT_EQ(list->status, 200);
  EXPECT_THAT(list->content_type, HasSubstr("application/json"));
  auto json = ParseJson(list->body);
  ASSERT_TRUE(json.ok()) << json.status();
  const auto& worlds = json->fields().at("worlds").list_value().values();
  ASSERT_EQ(worlds.size(), 1);
  const auto& w = worlds[0].struct_value().fields();
  EXPECT_EQ(w.at("id").string_value(), "viewed");
  EXPECT_EQ(w.at("tick_rate").number_value(), 60);
  EXPECT_EQ(w.at("bodies").number_value(), 16);  // 15 boxes and the ground
  EXPECT_TRUE(w.contains("tick"));
  EXPECT_TRUE(w.contains("sessions"));
  EXPECT_TRUE(w.contains("late_ticks"));
  auto one = HttpRequest(url_, "GET", "/api/worlds/viewed");
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_EQ(one->status, 200);
  EXPECT_THAT(one->body, HasSubstr("\"id\":\"viewed\""));
}

TEST_F(WebViewerTest, StreamFramesAdvanceAndMatchALocalReplica) {
  const v1::SceneSpec scene = CreatePyramid("stream");
  auto events = ReadEvents(url_, "/api/worlds/stream/stream?aabbs=1", 20, absl::Seconds(10));
  ASSERT_TRUE(events.ok()) << events.status();
  ASSERT_EQ(events->size(), 20u);
  double last_tick = -1;
  google::protobuf::Struct last;
  for (const StreamEvent& e : *events) {
    ASSERT_EQ(e.event, "frame") << e.data;
    auto frame = ParseJson(e.data);
    ASSERT_TRUE(frame.ok()) << frame.status();
    const double tick = frame->fields().at("tick").number_value();
    EXPECT_GT(tick, last_tick);
    last_tick = tick;
    EXPECT_TRUE(frame->fields().at("hash_matches").bool_value());
    EXPECT_TRUE(frame->fields().contains("aabbs"));
    EXPECT_EQ(frame->fields().at("world").string_value(), "stream");
    last = *std::move(frame);
  }
  // The world has no inputs: stepping the scene locally to the last frame's
  // tick gives its state, hash and bodies.
  const v1::WorldInfo info = GetWorld(server_->address(), "stream");
  auto sim = server::Simulation::Create(scene, info.config());
  ASSERT_TRUE(sim.ok()) << sim.status();
  while ((*sim)->tick() < static_cast<uint64_t>(last_tick)) {
    ASSERT_TRUE((*sim)->Step({}, nullptr).ok());
  }
  EXPECT_EQ(last.fields().at("hash").string_value(), absl::StrFormat("%016x", (*sim)->hash()));
  const auto& bodies = last.fields().at("bodies").list_value().values();
  const std::vector<BodyId> ids = (*sim)->world().GetBodyIds();
  ASSERT_EQ(static_cast<size_t>(bodies.size()), ids.size());
  for (size_t i = 0; i < ids.size(); ++i) {
    const auto& b = bodies[static_cast<int>(i)].list_value().values();
    auto body = (*sim)->world().GetBody(ids[i]);
    ASSERT_TRUE(body.ok());
    EXPECT_EQ(b[0].number_value(), ids[i].index);
    EXPECT_EQ(b[1].number_value(), ids[i].generation);
    EXPECT_NEAR(b[5].number_value(), body->transform.p.x, 1e-3) << "body " << i;
    EXPECT_NEAR(b[6].number_value(), body->transform.p.y, 1e-3) << "body " << i;
    EXPECT_NEAR(b[11].number_value(), body->mass, 1e-3) << "body " << i;
  }
  // The ground and 15 boxes, batched by colour into paths of 16 polygons.
  int polygons = 0;
  for (const auto& batch : last.fields().at("shapes").list_value().values()) {
    const std::string& path = batch.list_value().values(3).string_value();
    polygons += static_cast<int>(std::count(path.begin(), path.end(), 'M'));
  }
  EXPECT_EQ(polygons, 16);
  EXPECT_LT(last.fields().at("shapes").list_value().values_size(), 16) << "one batch per colour";
}

TEST_F(WebViewerTest, DestroyedWorldEndsTheStream) {
  CreatePyramid("doomed");
  auto first = ReadEvents(url_, "/api/worlds/doomed/stream", 1, absl::Seconds(5));
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_EQ(first->size(), 1u);
  // The viewer's spectator session counts in the world's sessions while it
  // streams, and leaves with it.
  std::thread destroy([this] {
    absl::SleepFor(absl::Milliseconds(300));
    DestroyWorld(server_->address(), "doomed");
  });
  auto events = ReadEvents(url_, "/api/worlds/doomed/stream", 1000, absl::Seconds(10));
  destroy.join();
  ASSERT_TRUE(events.ok()) << events.status();
  ASSERT_FALSE(events->empty());
  EXPECT_EQ(events->back().event, "end");
  EXPECT_THAT(events->back().data, HasSubstr("doomed"));
}

TEST_F(WebViewerTest, ViewersOfOneWorldShareOneSpectatorSession) {
  CreatePyramid("shared");
  // Three viewers at once: each gets its frames, and the world sees one
  // spectator (one replica re-simulated for all of them).
  std::vector<std::thread> viewers;
  std::vector<absl::StatusOr<std::vector<StreamEvent>>> got(3);
  for (int i = 0; i < 3; ++i) {
    viewers.emplace_back([&, i] {
      got[i] = ReadEvents(url_, "/api/worlds/shared/stream", 40, absl::Seconds(10));
    });
  }
  int most = 0, seen_one = 0;
  for (int i = 0; i < 20; ++i) {
    absl::SleepFor(absl::Milliseconds(20));
    const int sessions = GetWorld(server_->address(), "shared").sessions_size();
    most = std::max(most, sessions);
    seen_one += sessions == 1;
  }
  for (std::thread& t : viewers) t.join();
  EXPECT_EQ(most, 1);
  EXPECT_GT(seen_one, 0);
  for (const auto& events : got) {
    ASSERT_TRUE(events.ok()) << events.status();
    EXPECT_EQ(events->size(), 40u);
  }
}

TEST_F(WebViewerTest, UnknownWorldAndPathAre404) {
  for (const std::string path :
       {"/api/worlds/nowhere", "/api/worlds/nowhere/stream", "/api/worlds/nowhere/frame"}) {
    auto reply = HttpRequest(url_, "GET", path);
    ASSERT_TRUE(reply.ok()) << reply.status();
    EXPECT_EQ(reply->status, 404) << path;
    EXPECT_THAT(reply->body, HasSubstr("world 'nowhere' not found")) << path;
  }
  auto reply = HttpRequest(url_, "GET", "/etc/passwd");
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_EQ(reply->status, 404);
  EXPECT_THAT(reply->body, HasSubstr("no such page"));
}

TEST_F(WebViewerTest, OnlyGetAndHeadAreServed) {
  CreatePyramid("readonly");
  for (const std::string method : {"POST", "PUT", "DELETE"}) {
    for (const std::string path : {"/", "/api/worlds", "/api/worlds/readonly"}) {
      auto reply = HttpRequest(url_, method, path);
      ASSERT_TRUE(reply.ok()) << reply.status();
      EXPECT_EQ(reply->status, 405) << method << " " << path;
      EXPECT_THAT(reply->body, HasSubstr("read-only"));
    }
  }
  // The world is still there and unchanged in kind.
  auto list = HttpRequest(url_, "GET", "/api/worlds");
  ASSERT_TRUE(list.ok());
  EXPECT_THAT(list->body, HasSubstr("\"id\":\"readonly\""));
}

TEST(WebViewerFlagTest, BadHttpListenExitsWithUsageError) {
  for (const std::string bad : {"nonsense", "127.0.0.1:99999", "127.0.0.1:http"}) {
    std::string output;
    const int code = RunCommand(
        {BinaryPath("atoll-server"), "--listen=127.0.0.1:0", "--http_listen=" + bad}, &output);
    EXPECT_EQ(code, 2) << bad << ": " << output;
    EXPECT_THAT(output, HasSubstr("--http_listen")) << output;
    EXPECT_THAT(output, HasSubstr(bad.substr(bad.find(':') + 1))) << output;
  }
}

TEST(WebViewerFlagTest, OffByDefault) {
  auto server = ServerProcess::Start();
  ASSERT_TRUE(server.ok()) << server.status();
  absl::SleepFor(absl::Milliseconds(200));
  EXPECT_THAT(server->get()->Output(), ::testing::Not(HasSubstr("viewer at")));
}

}  // namespace
}  // namespace atl::testing
