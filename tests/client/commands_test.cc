// Integration: the `atoll` commands against the real atoll-server binary.

#include <signal.h>

#include <gtest/gtest.h>

#include <filesystem>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "atoll/client/bot.h"
#include "atoll/client/recording_file.h"
#include "client/client_test_util.h"
#include "server/service_test_util.h"
#include "support/server_process.h"

namespace atl::client {
namespace {

using ::atl::testing::BinaryPath;
using ::atl::testing::RunCommand;
using ::atl::testing::ServerProcess;

std::filesystem::path TempDir() {
  return std::filesystem::temp_directory_path() / absl::StrCat("atoll_client_test_", getpid());
}

std::string TempPath(const std::string& name) {
  std::filesystem::create_directories(TempDir());
  return (TempDir() / name).string();
}

class CommandsTest : public ::testing::Test {
 protected:
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(TempDir(), ec);
  }
};

bool OneLine(const std::string& output) {
  return !output.empty() && output.find('\n') == output.size() - 1;
}

TEST_F(CommandsTest, VerifyCatchesATamperedRecordingAtTheRightTickAndBody) {
  auto server = ServerProcess::Start();
  ASSERT_TRUE(server.ok()) << server.status();
  const std::string address = (*server)->address();
  const auto world = atl::testing::CreateArena(address, "taped", 1, 240);
  BotOptions bots;
  bots.address = address;
  bots.world_id = world.id;
  bots.scene = world.scene;
  bots.tokens = world.tokens;
  bots.ticks = 300;
  ASSERT_TRUE(RunBots(bots).ok());
  v1::Recording recording = atl::testing::GetRecording(address, world.id);

  const std::string good = TempPath("good.atrec");
  ASSERT_TRUE(WriteRecordingFile(good, recording).ok());
  std::string output;
  EXPECT_EQ(RunCommand({BinaryPath("atoll"), "verify", good}, &output), 0) << output;
  EXPECT_NE(output.find("ok"), std::string::npos) << output;

  // Push slot 1's circle (body 4) harder at the first input on or after
  // tick 150.
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
  const std::string bad = TempPath("bad.atrec");
  ASSERT_TRUE(WriteRecordingFile(bad, recording).ok());
  EXPECT_EQ(RunCommand({BinaryPath("atoll"), "verify", bad}, &output), 1) << output;
  EXPECT_NE(output.find(absl::StrCat("diverged at tick ", tampered_tick, ":")), std::string::npos)
      << output;
  // The first body named in the diff is the one that was pushed.
  const size_t first_body = output.find("body ");
  ASSERT_NE(first_body, std::string::npos) << output;
  EXPECT_EQ(output.substr(first_body, 7), "body 4:") << output;

  EXPECT_EQ(RunCommand({BinaryPath("atoll"), "verify", TempPath("missing.atrec")}, &output), 1);
  EXPECT_TRUE(OneLine(output)) << output;
}

TEST_F(CommandsTest, CreateListWatchBatchAndDestroy) {
  auto server = ServerProcess::Start();
  ASSERT_TRUE(server.ok()) << server.status();
  const std::string flag = "--server=" + (*server)->address();
  std::string output;
  ASSERT_EQ(RunCommand({BinaryPath("atoll"), "create", atl::testing::ArenaScenePath(), flag,
                        "--id=arena", "--slots=4", "--tick_rate=120"},
                       &output),
            0)
      << output;
  EXPECT_NE(output.find("created arena: 20 bodies"), std::string::npos) << output;
  EXPECT_NE(output.find("slot 4 token "), std::string::npos) << output;
  std::vector<std::string> tokens;  // "slot N token T" lines, in slot order
  for (absl::string_view line : absl::StrSplit(output, '\n')) {
    std::vector<std::string> words = absl::StrSplit(line, ' ');
    if (words.size() == 4 && words[0] == "slot" && words[2] == "token") tokens.push_back(words[3]);
  }
  ASSERT_EQ(tokens.size(), 4u) << output;
  ASSERT_EQ(RunCommand({BinaryPath("atoll"), "create", "pyramid", flag, "--id=pyr", "--size=5"},
                       &output),
            0)
      << output;

  ASSERT_EQ(RunCommand({BinaryPath("atoll"), "worlds", flag}, &output), 0) << output;
  EXPECT_NE(output.find("arena"), std::string::npos) << output;
  EXPECT_NE(output.find("pyr"), std::string::npos) << output;

  const std::string svg = TempPath("frames");
  ASSERT_EQ(RunCommand({BinaryPath("atoll"), "watch", "pyr", flag, "--ticks=12", "--svg=" + svg,
                        "--svg_every=5"},
                       &output),
            0)
      << output;
  EXPECT_NE(output.find("watching pyr"), std::string::npos) << output;
  EXPECT_EQ(output.find("differs"), std::string::npos) << output;
  int ticks = 0;
  for (absl::string_view line : absl::StrSplit(output, '\n')) {
    if (absl::StartsWith(line, "tick ")) ++ticks;
  }
  EXPECT_EQ(ticks, 12) << output;
  int frames = 0;
  for (const auto& entry : std::filesystem::directory_iterator(svg)) {
    frames += entry.path().extension() == ".svg";
  }
  EXPECT_GE(frames, 2);

  // --every=4 prints one line per 4 ticks: 12 ticks, 3 lines.
  ASSERT_EQ(RunCommand({BinaryPath("atoll"), "watch", "pyr", flag, "--ticks=12", "--every=4"},
                       &output),
            0)
      << output;
  ticks = 0;
  for (absl::string_view line : absl::StrSplit(output, '\n')) {
    if (absl::StartsWith(line, "tick ")) ++ticks;
  }
  EXPECT_EQ(ticks, 3) << output;

  ASSERT_EQ(RunCommand({BinaryPath("atoll"), "batch", "pyramid", flag, "--steps=200", "--size=5"},
                       &output),
            0)
      << output;
  EXPECT_NE(output.find("200 steps"), std::string::npos) << output;
  EXPECT_NE(output.find("200/200"), std::string::npos) << output;

  // Without the tokens the bots cannot play; the server does not hand them
  // out. None at all is a usage error; fewer than --players, a failure.
  EXPECT_EQ(RunCommand({BinaryPath("atoll"), "bot", "arena", flag, "--players=2", "--ticks=10"},
                       &output),
            2)
      << output;
  EXPECT_NE(output.find("missing --tokens"), std::string::npos) << output;
  EXPECT_EQ(RunCommand({BinaryPath("atoll"), "bot", "arena", flag, "--players=2", "--ticks=10",
                        "--tokens=" + tokens[0]},
                       &output),
            1)
      << output;
  EXPECT_NE(output.find("players"), std::string::npos) << output;
  ASSERT_EQ(RunCommand({BinaryPath("atoll"), "bot", "arena", flag, "--players=2", "--ticks=120",
                        "--latency=10ms", "--tokens=" + absl::StrJoin(tokens, ",")},
                       &output),
            0)
      << output;
  EXPECT_NE(output.find("ROLLBACKS"), std::string::npos) << output;

  ASSERT_EQ(RunCommand({BinaryPath("atoll"), "destroy", "pyr", flag}, &output), 0) << output;
  ASSERT_EQ(RunCommand({BinaryPath("atoll"), "worlds", flag}, &output), 0) << output;
  EXPECT_EQ(output.find("pyr"), std::string::npos) << output;
}

TEST_F(CommandsTest, UnreachableServerAndUnknownWorldGiveOneLineAndFail) {
  auto server = ServerProcess::Start();
  ASSERT_TRUE(server.ok()) << server.status();
  const std::string flag = "--server=" + (*server)->address();
  std::string output;
  for (const std::string command : {"watch", "bot", "destroy"}) {
    std::vector<std::string> argv = {BinaryPath("atoll"), command, "nowhere", flag};
    if (command == "bot") argv.push_back("--tokens=t");  // else a usage error
    EXPECT_EQ(RunCommand(argv, &output), 1) << command;
    EXPECT_TRUE(OneLine(output)) << command << ": " << output;
    EXPECT_NE(output.find("nowhere"), std::string::npos) << command << ": " << output;
  }
  EXPECT_EQ(RunCommand({BinaryPath("atoll"), "create", "no_such_scene", flag}, &output), 1);
  EXPECT_TRUE(OneLine(output)) << output;

  const std::string address = (*server)->address();
  (*server)->StopWith(SIGKILL);
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"worlds"}, {"watch", "w"}, {"bot", "w", "--tokens=t"},
        {"batch", "pyramid"}}) {
    std::vector<std::string> argv = {BinaryPath("atoll")};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.push_back("--server=" + address);
    argv.push_back("--timeout=1s");
    EXPECT_EQ(RunCommand(argv, &output), 1) << args[0];
    EXPECT_TRUE(OneLine(output)) << args[0] << ": " << output;
    EXPECT_NE(output.find(address), std::string::npos) << args[0] << ": " << output;
  }
}

}  // namespace
}  // namespace atl::client
