// The replay inspector of atoll-server's web viewer through the real binary:
// a world recorded under --data_dir is listed, any tick seeks to the
// recorded hash (forward, back past a checkpoint, forward again),
// verification in the page's stream says ok; the same recording with one
// impulse changed, uploaded, verifies as diverged at that tick with the
// pushed body among the differing ones and both states drawn; a foreign
// upload is refused by name and nothing else takes a POST.

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "atoll/client/bot.h"
#include "atoll/sim/recording_format.h"
#include "client/client_test_util.h"
#include "server/service_test_util.h"
#include "support/server_process.h"
#include "support/viewer_client.h"

namespace atl::testing {
namespace {

using ::testing::HasSubstr;

class ReplayInspectorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    data_dir_ = std::filesystem::temp_directory_path() /
                absl::StrCat("atoll_replay_inspector_test_", getpid());
    auto server = ServerProcess::Start(
        {absl::StrCat("--data_dir=", data_dir_.string()), "--http_listen=127.0.0.1:0"});
    ASSERT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    auto url = server_->WaitForLine("atoll-server viewer at ");
    ASSERT_TRUE(url.ok()) << url.status();
    url_ = *url;
  }
  void TearDown() override {
    server_.reset();
    std::error_code ec;
    std::filesystem::remove_all(data_dir_, ec);
  }

  // The JSON answer of GET `path`, which must be 200.
  google::protobuf::Struct GetJson(const std::string& path) {
    auto reply = HttpRequest(url_, "GET", path);
    EXPECT_TRUE(reply.ok()) << reply.status();
    if (!reply.ok()) return {};
    EXPECT_EQ(reply->status, 200) << path << ": " << reply->body;
    auto json = ParseJson(reply->body);
    EXPECT_TRUE(json.ok()) << json.status();
    return json.ok() ? *json : google::protobuf::Struct();
  }

  // The "result" event of a verification of recording `id`.
  google::protobuf::Struct VerifyInPage(const std::string& id) {
    auto events = ReadEvents(url_, absl::StrCat("/api/recordings/", id, "/verify"), 100000,
                             absl::Seconds(60));
    EXPECT_TRUE(events.ok()) << events.status();
    if (!events.ok() || events->empty()) return {};
    EXPECT_EQ(events->back().event, "result") << events->back().data;
    auto json = ParseJson(events->back().data);
    EXPECT_TRUE(json.ok()) << json.status();
    return json.ok() ? *json : google::protobuf::Struct();
  }

  std::filesystem::path data_dir_;
  std::unique_ptr<ServerProcess> server_;
  std::string url_;
};

double Number(const google::protobuf::Struct& s, const std::string& key) {
  return s.fields().at(key).number_value();
}

TEST_F(ReplayInspectorTest, SeeksVerifiesAndShowsATamperedRecordingsDivergence) {
  const std::string address = server_->address();
  const TestWorld world = CreateArena(address, "taped", 1, 240);
  client::BotOptions bots;
  bots.address = address;
  bots.world_id = world.id;
  bots.scene = world.scene;
  bots.tokens = world.tokens;
  bots.ticks = 300;
  ASSERT_TRUE(client::RunBots(bots).ok());
  v1::Recording recording = GetRecording(address, world.id);
  std::map<uint64_t, uint64_t> recorded;
  for (const v1::RecordedTick& t : recording.ticks()) recorded[t.tick()] = t.state_hash();
  ASSERT_GE(recording.checkpoints_size(), 2);

  // Listed from <data_dir>/worlds.
  auto list = HttpRequest(url_, "GET", "/api/recordings");
  ASSERT_TRUE(list.ok()) << list.status();
  EXPECT_THAT(list->body, HasSubstr("\"id\":\"taped\",\"source\":\"data dir\""));
  const google::protobuf::Struct summary = GetJson("/api/recordings/taped");
  ASSERT_EQ(Number(summary, "first_tick"), 0);
  const uint64_t last = static_cast<uint64_t>(Number(summary, "last_tick"));
  ASSERT_GE(last, 280u);

  // Forward, back across a checkpoint, one step on, a jump.
  const uint64_t cp = recording.checkpoints(1).tick();
  ASSERT_GT(cp, 20u);
  ASSERT_LT(cp + 10, last);
  for (uint64_t tick : {cp + 10, uint64_t{17}, cp + 1, cp, cp - 1, cp, uint64_t{1}, uint64_t{0},
                        uint64_t{280}}) {
    const google::protobuf::Struct frame =
        GetJson(absl::StrCat("/api/recordings/taped/frame?tick=", tick));
    ASSERT_EQ(Number(frame, "tick"), tick);
    const uint64_t want =
        tick == 0 ? recording.checkpoints(0).state_hash() : recorded.at(tick);
    EXPECT_EQ(frame.fields().at("hash").string_value(), absl::StrFormat("%016x", want))
        << "tick " << tick;
    EXPECT_TRUE(frame.fields().at("hash_matches").bool_value()) << "tick " << tick;
  }
  auto outside =
      HttpRequest(url_, "GET", absl::StrCat("/api/recordings/taped/frame?tick=", 1u << 30));
  ASSERT_TRUE(outside.ok());
  EXPECT_EQ(outside->status, 400);
  EXPECT_THAT(outside->body, HasSubstr("outside the recording"));

  const google::protobuf::Struct ok = VerifyInPage("taped");
  EXPECT_TRUE(ok.fields().at("ok").bool_value()) << ok.DebugString();
  EXPECT_GE(Number(ok, "ticks_verified"), 280);

  // Push slot 1's circle (body 4) harder at the first input on or after
  // tick 150 (as CommandsTest.VerifyCatchesATamperedRecordingAtTheRightTickAndBody).
  uint64_t tampered_tick = 0;
  for (v1::RecordedTick& t : *recording.mutable_ticks()) {
    if (t.tick() < 150 || t.inputs_size() == 0) continue;
    v1::ApplyImpulse* impulse = t.mutable_inputs(0)->mutable_commands(0)->mutable_apply_impulse();
    ASSERT_EQ(impulse->body().index(), 4u);
    impulse->mutable_impulse()->set_x(impulse->impulse().x() + 3.0f);
    tampered_tick = t.tick();
    break;
  }
  ASSERT_NE(tampered_tick, 0u);
  // Where verify.cc compares the states: the first checkpoint at or after it.
  uint64_t diff_tick = 0;
  for (const v1::Checkpoint& c : recording.checkpoints()) {
    if (c.tick() >= tampered_tick) {
      diff_tick = c.tick();
      break;
    }
  }
  ASSERT_NE(diff_tick, 0u);
  auto uploaded = HttpPost(url_, "/api/recordings?name=bad.atrec",
                           sim::EncodeRecording(recording), "application/octet-stream");
  ASSERT_TRUE(uploaded.ok()) << uploaded.status();
  ASSERT_EQ(uploaded->status, 201) << uploaded->body;
  auto upload = ParseJson(uploaded->body);
  ASSERT_TRUE(upload.ok()) << upload.status();
  const std::string id = upload->fields().at("id").string_value();
  auto listed = HttpRequest(url_, "GET", "/api/recordings");
  ASSERT_TRUE(listed.ok());
  EXPECT_THAT(listed->body,
              HasSubstr(absl::StrCat("\"id\":\"", id, "\",\"source\":\"upload\",")));
  EXPECT_THAT(listed->body, HasSubstr("\"name\":\"bad.atrec\""));

  // Seeking shows where the re-simulation leaves the recording.
  EXPECT_TRUE(GetJson(absl::StrCat("/api/recordings/", id, "/frame?tick=", tampered_tick - 1))
                  .fields().at("hash_matches").bool_value());
  EXPECT_FALSE(GetJson(absl::StrCat("/api/recordings/", id, "/frame?tick=", tampered_tick))
                   .fields().at("hash_matches").bool_value());

  const google::protobuf::Struct bad = VerifyInPage(id);
  ASSERT_FALSE(bad.fields().at("ok").bool_value()) << bad.DebugString();
  EXPECT_EQ(bad.fields().at("kind").string_value(), "state");
  EXPECT_EQ(Number(bad, "tick"), tampered_tick);
  EXPECT_EQ(bad.fields().at("expected_hash").string_value(),
            absl::StrFormat("%016x", recorded.at(tampered_tick)));
  // Without a checkpoint at the divergent tick the states are compared at
  // the next one, and the page says so.
  EXPECT_EQ(Number(bad, "diff_tick"), diff_tick);
  EXPECT_EQ(bad.fields().at("diff_at_divergent_tick").bool_value(), diff_tick == tampered_tick);
  if (diff_tick != tampered_tick) {
    EXPECT_THAT(bad.fields().at("message").string_value(),
                HasSubstr(absl::StrCat("tick ", tampered_tick, " has no checkpoint")));
  }
  const auto& bodies = bad.fields().at("bodies").list_value().values();
  ASSERT_FALSE(bodies.empty());
  std::vector<int> indices;
  for (const auto& b : bodies) {
    indices.push_back(static_cast<int>(b.struct_value().fields().at("index").number_value()));
    EXPECT_FALSE(b.struct_value().fields().at("what").string_value().empty());
    EXPECT_TRUE(b.struct_value().fields().contains("recorded"));
    EXPECT_TRUE(b.struct_value().fields().contains("replayed"));
  }
  EXPECT_THAT(indices, ::testing::Contains(4));
  const auto& recorded_frame = bad.fields().at("recorded_frame").struct_value();
  const auto& replayed_frame = bad.fields().at("replayed_frame").struct_value();
  EXPECT_EQ(recorded_frame.fields().at("tick").number_value(), diff_tick);
  EXPECT_EQ(replayed_frame.fields().at("tick").number_value(), diff_tick);
  EXPECT_NE(recorded_frame.fields().at("hash").string_value(),
            replayed_frame.fields().at("hash").string_value());

  // A file that is no recording: refused by name, nothing listed; and no
  // other route takes a POST or a body.
  auto foreign = HttpPost(url_, "/api/recordings?name=notes.txt", "hello, world",
                          "application/octet-stream");
  ASSERT_TRUE(foreign.ok());
  EXPECT_EQ(foreign->status, 400);
  EXPECT_THAT(foreign->body, HasSubstr("notes.txt is not an Atoll recording"));
  auto after = HttpRequest(url_, "GET", "/api/recordings");
  ASSERT_TRUE(after.ok());
  EXPECT_THAT(after->body, ::testing::Not(HasSubstr("notes.txt")));
  auto post = HttpPost(url_, "/api/worlds", "x", "application/octet-stream");
  ASSERT_TRUE(post.ok());
  EXPECT_EQ(post->status, 405);
  auto missing = HttpRequest(url_, "GET", "/api/recordings/nope");
  ASSERT_TRUE(missing.ok());
  EXPECT_EQ(missing->status, 404);
  EXPECT_THAT(missing->body, HasSubstr("recording 'nope' not found"));
}

}  // namespace
}  // namespace atl::testing
