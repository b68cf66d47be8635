// `atoll batch run` and `atoll batch merge` as a Kubernetes Indexed Job
// uses them: the real `atoll` binary, one process per shard with
// JOB_COMPLETION_INDEX set as Kubernetes sets it, all writing into one
// folder. The merged table equals, run for run, that of one process; a
// killed shard run again completes the set; bad input is refused by name.
// Sweeps are tiny (a few small scenes, tens of steps); nothing is timed.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "atoll/client/batch_sweep.h"
#include "support/server_process.h"

extern char** environ;

namespace atl::client {
namespace {

namespace fs = std::filesystem;
using ::atl::testing::BinaryPath;
using ::atl::testing::RunCommand;

// Six runs: sizes 8 and 16 x seeds 1, 2, 3, 40 steps each.
constexpr char kSweep[] = R"({
  "name": "test sweep",
  "builtin": "falling_circles",
  "sizes": [8, 16],
  "seeds": [1, 2, 3],
  "steps": 40
})";
constexpr int kRuns = 6;

std::string MakeTempDir() {
  std::string pattern = (fs::temp_directory_path() / "atoll_batch_XXXXXX").string();
  const char* made = ::mkdtemp(pattern.data());
  EXPECT_NE(made, nullptr);
  return pattern;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// Starts `atoll args...` with `env` ("NAME=VALUE") added to this process's
// environment and its output in `log`; returns the pid.
pid_t StartAtoll(const std::vector<std::string>& args, const std::vector<std::string>& env,
                 const std::string& log) {
  std::vector<std::string> argv = {BinaryPath("atoll")};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<std::string> envs;
  for (char** e = environ; *e != nullptr; ++e) {
    // The test's own shard variables (if any) must not leak in.
    const std::string entry = *e;
    if (entry.rfind("JOB_COMPLETION_INDEX=", 0) == 0) continue;
    if (entry.rfind("ATOLL_BATCH_SHARDS=", 0) == 0) continue;
    envs.push_back(entry);
  }
  envs.insert(envs.end(), env.begin(), env.end());
  std::vector<char*> c_argv, c_env;
  for (std::string& a : argv) c_argv.push_back(a.data());
  for (std::string& e : envs) c_env.push_back(e.data());
  c_argv.push_back(nullptr);
  c_env.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, STDOUT_FILENO);
    ::dup2(fd, STDERR_FILENO);
    ::execve(c_argv[0], c_argv.data(), c_env.data());
    ::_exit(127);
  }
  return pid;
}

// Waits for `pid`; its exit code, or 128 + the signal that killed it.
int Wait(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

struct Result {
  int code = -1;
  std::string out;
};

// Runs `atoll args...` to completion with `env` added.
Result Atoll(const std::vector<std::string>& args, const std::vector<std::string>& env = {}) {
  const std::string log =
      (fs::temp_directory_path() / absl::StrCat("atoll_batch_log_", ::getpid(), ".txt")).string();
  Result result;
  result.code = Wait(StartAtoll(args, env, log));
  result.out = ReadFile(log);
  fs::remove(log);
  return result;
}

// The record files (run-*.json) of `dir`.
std::vector<std::string> Records(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("run-", 0) == 0) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

// results.csv without the three timing columns (the last three).
std::vector<std::string> DeterministicRows(const std::string& dir) {
  std::vector<std::string> rows;
  for (absl::string_view line : absl::StrSplit(ReadFile(dir + "/results.csv"), '\n')) {
    if (line.empty()) continue;
    std::vector<absl::string_view> cells = absl::StrSplit(line, ',');
    cells.resize(cells.size() - 3);
    rows.push_back(absl::StrJoin(cells, ","));
  }
  return rows;
}

class BatchSweepCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = MakeTempDir();
    spec_ = dir_ + "/sweep.json";
    WriteFile(spec_, kSweep);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A single-process run (--shards=1) of the sweep into a fresh folder.
  std::string RunInOneProcess() {
    const std::string out = dir_ + "/single";
    const Result run = Atoll({"batch", "run", spec_, "--shards=1", "--out=" + out});
    EXPECT_EQ(run.code, 0) << run.out;
    const Result merge = Atoll({"batch", "merge", out});
    EXPECT_EQ(merge.code, 0) << merge.out;
    return out;
  }

  std::string dir_;
  std::string spec_;
};

TEST_F(BatchSweepCommandTest, ShardProcessesMergeToTheSingleProcessResult) {
  const std::string out = dir_ + "/sharded";
  constexpr int kShards = 3;
  std::vector<pid_t> shards;
  for (int i = 0; i < kShards; ++i) {
    shards.push_back(StartAtoll(
        {"batch", "run", spec_, absl::StrCat("--shards=", kShards), "--out=" + out, "--threads=1"},
        {absl::StrCat("JOB_COMPLETION_INDEX=", i)}, absl::StrCat(dir_, "/shard", i, ".log")));
  }
  for (int i = 0; i < kShards; ++i) {
    const std::string log = absl::StrCat(dir_, "/shard", i, ".log");
    EXPECT_EQ(Wait(shards[i]), 0) << ReadFile(log);
    // Not a terminal: a line per run (runs i, i + 3 of six), then the summary.
    const std::string output = ReadFile(log);
    EXPECT_TRUE(Has(output, absl::StrCat("run ", i, " (size 8, seed ", i + 1, "): 40 steps")))
        << output;
    EXPECT_TRUE(Has(output, absl::StrCat("shard ", i, " of 3: 2 runs (2 run now"))) << output;
  }
  EXPECT_EQ(Records(out).size(), static_cast<size_t>(kRuns));

  const Result merge = Atoll({"batch", "merge", out});
  ASSERT_EQ(merge.code, 0) << merge.out;
  EXPECT_TRUE(Has(merge.out, "test sweep ")) << merge.out;
  EXPECT_TRUE(Has(merge.out, ": 6 runs, each recorded once")) << merge.out;
  EXPECT_TRUE(Has(merge.out, "wrote " + out + "/results.csv (6 rows)")) << merge.out;
  EXPECT_TRUE(Has(merge.out, "wrote " + out + "/results.svg")) << merge.out;
  EXPECT_TRUE(Has(ReadFile(out + "/results.svg"), "<svg"));

  const std::vector<std::string> sharded = DeterministicRows(out);
  const std::vector<std::string> single = DeterministicRows(RunInOneProcess());
  ASSERT_EQ(sharded.size(), static_cast<size_t>(kRuns + 1));
  EXPECT_EQ(sharded[0], single[0]);  // the header
  for (int run = 0; run < kRuns; ++run) {
    EXPECT_TRUE(Has(sharded[1 + run], absl::StrCat(run, ","))) << sharded[1 + run];
    EXPECT_EQ(sharded[1 + run], single[1 + run]) << "run " << run;
  }
}

TEST_F(BatchSweepCommandTest, ShardsThroughTheServerGiveTheInProcessResult) {
  auto server = ::atl::testing::ServerProcess::Start();
  ASSERT_TRUE(server.ok()) << server.status();
  const std::string out = dir_ + "/served";
  for (int i = 0; i < 2; ++i) {
    const Result run = Atoll(
        {"batch", "run", spec_, "--shards=2", "--out=" + out, "--server=" + (*server)->address()},
        {absl::StrCat("JOB_COMPLETION_INDEX=", i)});
    ASSERT_EQ(run.code, 0) << run.out;
    EXPECT_TRUE(Has(run.out, "stepped by " + (*server)->address())) << run.out;
  }
  const Result merge = Atoll({"batch", "merge", out});
  ASSERT_EQ(merge.code, 0) << merge.out;
  EXPECT_EQ(DeterministicRows(out), DeterministicRows(RunInOneProcess()));
}

TEST_F(BatchSweepCommandTest, KilledShardRerunCompletesTheSetWithoutDuplicates) {
  // Enough runs that the shard is most likely still busy when killed; the
  // test holds however far it got.
  const std::string spec = dir_ + "/big.json";
  WriteFile(spec, R"({"builtin": "falling_circles", "sizes": [30, 40, 50, 60, 70, 80],
                      "seeds": [1, 2, 3, 4, 5, 6], "steps": 240})");
  const std::string out = dir_ + "/killed";
  const std::vector<std::string> args = {"batch",      "run",          spec,
                                         "--shards=2", "--out=" + out, "--threads=1"};
  const pid_t pid = StartAtoll(args, {"JOB_COMPLETION_INDEX=1"}, dir_ + "/killed.log");
  for (int i = 0; i < 2000 && !fs::exists(out + "/run-000001.json"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ::kill(pid, SIGKILL);
  Wait(pid);
  // What a kill mid-write leaves: a temporary record, never a half one.
  WriteFile(out + "/.run-000003.json.tmp-999999", "{\"sweep_dig");
  // And a record lost: the rerun must make it again.
  fs::remove(out + "/run-000001.json");

  const Result shard0 = Atoll(args, {"JOB_COMPLETION_INDEX=0"});
  ASSERT_EQ(shard0.code, 0) << shard0.out;
  const Result merge_incomplete = Atoll({"batch", "merge", out});
  EXPECT_EQ(merge_incomplete.code, 1) << merge_incomplete.out;
  EXPECT_TRUE(Has(merge_incomplete.out, "atoll: " + out + ": ")) << merge_incomplete.out;
  EXPECT_TRUE(Has(merge_incomplete.out, " of 36 runs missing: 1")) << merge_incomplete.out;

  const size_t before = Records(out).size();
  const Result rerun = Atoll(args, {"JOB_COMPLETION_INDEX=1"});
  ASSERT_EQ(rerun.code, 0) << rerun.out;
  const size_t skipped = before - 18;  // shard 0's 18 records were there too
  EXPECT_TRUE(Has(rerun.out, absl::StrCat("shard 1 of 2: 18 runs (", 18 - skipped, " run now, ",
                                          skipped, " already recorded)")))
      << rerun.out;
  EXPECT_EQ(Records(out).size(), 36u);
  EXPECT_FALSE(fs::exists(out + "/.run-000003.json.tmp-999999"));
  const Result merge = Atoll({"batch", "merge", out});
  EXPECT_EQ(merge.code, 0) << merge.out;
  EXPECT_TRUE(Has(merge.out, ": 36 runs, each recorded once")) << merge.out;

  // Run again, a complete shard runs nothing.
  const Result again = Atoll(args, {"JOB_COMPLETION_INDEX=1"});
  EXPECT_EQ(again.code, 0) << again.out;
  EXPECT_TRUE(Has(again.out, "18 runs (0 run now, 18 already recorded)")) << again.out;
}

TEST_F(BatchSweepCommandTest, ShardIndexOutOfRangeIsRefused) {
  const std::string out = dir_ + "/out";
  const Result env =
      Atoll({"batch", "run", spec_, "--shards=3", "--out=" + out}, {"JOB_COMPLETION_INDEX=3"});
  EXPECT_EQ(env.code, 1) << env.out;
  EXPECT_TRUE(Has(env.out,
                  "atoll: shard index 3 ($JOB_COMPLETION_INDEX) is out of range: 3 "
                  "shards (--shards) are numbered 0..2"))
      << env.out;
  const Result flag = Atoll({"batch", "run", spec_, "--shard=1", "--out=" + out});
  EXPECT_EQ(flag.code, 1) << flag.out;
  EXPECT_TRUE(Has(flag.out, "shard index 1 (--shard) is out of range")) << flag.out;
  const Result bad =
      Atoll({"batch", "run", spec_, "--shards=2", "--out=" + out}, {"JOB_COMPLETION_INDEX=one"});
  EXPECT_EQ(bad.code, 1) << bad.out;
  EXPECT_TRUE(Has(bad.out, "$JOB_COMPLETION_INDEX='one' is not a number")) << bad.out;
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(BatchSweepCommandTest, FolderOfAnotherSweepIsRefused) {
  const std::string out = dir_ + "/out";
  ASSERT_EQ(Atoll({"batch", "run", spec_, "--out=" + out}).code, 0);
  const std::string other = dir_ + "/other.json";
  WriteFile(other, R"({"builtin": "falling_circles", "sizes": [8], "steps": 41})");
  const Result run = Atoll({"batch", "run", other, "--out=" + out});
  EXPECT_EQ(run.code, 1) << run.out;
  EXPECT_TRUE(Has(run.out, "atoll: " + out + " holds another sweep (" + out + "/sweep.json: "))
      << run.out;
  EXPECT_TRUE(Has(run.out, "use a new --out folder")) << run.out;
}

TEST_F(BatchSweepCommandTest, RecordInTheWayWithOtherContentIsRefused) {
  const std::string out = dir_ + "/out";
  ASSERT_EQ(Atoll({"batch", "run", spec_, "--out=" + out}).code, 0);
  // Run 4's record claiming to be run 5.
  const std::string path = out + "/run-000004.json";
  std::string record = ReadFile(path);
  const size_t at = record.find("\"run_index\": \"4\"");
  ASSERT_NE(at, std::string::npos) << record;
  record.replace(at, 16, "\"run_index\": \"5\"");
  WriteFile(path, record);
  const Result run = Atoll({"batch", "run", spec_, "--out=" + out});
  EXPECT_EQ(run.code, 1) << run.out;
  EXPECT_TRUE(Has(run.out, "atoll: " + path +
                               " exists with different content: run 5 instead "
                               "of 4"))
      << run.out;
}

TEST_F(BatchSweepCommandTest, MergeNamesMissingDuplicateAndForeignRecords) {
  const std::string out = dir_ + "/out";
  ASSERT_EQ(Atoll({"batch", "run", spec_, "--out=" + out}).code, 0);
  const std::string other_out = dir_ + "/other_out";
  const std::string other = dir_ + "/other.json";
  WriteFile(other, R"({"builtin": "falling_circles", "sizes": [8], "steps": 41})");
  ASSERT_EQ(Atoll({"batch", "run", other, "--out=" + other_out}).code, 0);

  fs::copy_file(out + "/run-000001.json", out + "/copy of run 1.json");
  fs::copy_file(other_out + "/run-000000.json", out + "/stray.json");
  fs::remove(out + "/run-000005.json");
  const Result merge = Atoll({"batch", "merge", out});
  EXPECT_EQ(merge.code, 1) << merge.out;
  EXPECT_TRUE(Has(merge.out, "atoll: duplicate records of run 1 in " + out +
                                 ": copy of run 1.json, run-000001.json"))
      << merge.out;
  EXPECT_TRUE(Has(merge.out, "atoll: foreign record " + out + "/stray.json: of sweep "))
      << merge.out;
  EXPECT_TRUE(Has(merge.out, "atoll: " + out + ": 1 of 6 runs missing: 5")) << merge.out;
  EXPECT_TRUE(Has(merge.out,
                  "is incomplete (1 missing, 2 duplicate or foreign records): "
                  "nothing written"))
      << merge.out;
  EXPECT_FALSE(fs::exists(out + "/results.csv"));

  // Not a folder of a sweep at all.
  const Result empty = Atoll({"batch", "merge", dir_ + "/nothing"});
  EXPECT_EQ(empty.code, 1) << empty.out;
  EXPECT_TRUE(Has(empty.out, "atoll: " + dir_ + "/nothing: no such folder")) << empty.out;
}

TEST_F(BatchSweepCommandTest, BadSpecFieldIsNamed) {
  const std::string bad = dir_ + "/bad.json";
  WriteFile(bad, R"({"builtin": "falling_circles", "sizes": [8, -5], "steps": 40})");
  const Result run = Atoll({"batch", "run", bad, "--out=" + dir_ + "/out"});
  EXPECT_EQ(run.code, 1) << run.out;
  EXPECT_TRUE(Has(run.out, "atoll: " + bad + ": sweep.sizes[1]: -5 is negative")) << run.out;
  EXPECT_FALSE(fs::exists(dir_ + "/out"));
}

TEST_F(BatchSweepCommandTest, SubcommandsHaveTheirOwnUsageAndPlainBatchStillNeedsAServer) {
  const Result no_out = Atoll({"batch", "run", spec_});
  EXPECT_EQ(no_out.code, 2) << no_out.out;
  EXPECT_TRUE(Has(no_out.out, "atoll batch run: missing --out")) << no_out.out;
  const Result no_spec = Atoll({"batch", "run", "--out=x"});
  EXPECT_EQ(no_spec.code, 2) << no_spec.out;
  EXPECT_TRUE(Has(no_spec.out, "atoll batch run: missing SPEC")) << no_spec.out;
  const Result merge_flag = Atoll({"batch", "merge", "x", "--shards=2"});
  EXPECT_EQ(merge_flag.code, 2) << merge_flag.out;
  EXPECT_TRUE(Has(merge_flag.out, "atoll batch merge: unknown flag --shards")) << merge_flag.out;
  const Result help = Atoll({"help", "batch", "run"});
  EXPECT_EQ(help.code, 0) << help.out;
  EXPECT_TRUE(Has(help.out, "usage: atoll batch run SPEC --out=DIR")) << help.out;
  EXPECT_TRUE(Has(help.out, "$JOB_COMPLETION_INDEX")) << help.out;
  // The server form is unchanged.
  const Result plain = Atoll({"batch", "pyramid"});
  EXPECT_EQ(plain.code, 2) << plain.out;
  EXPECT_TRUE(Has(plain.out, "atoll batch: missing --server")) << plain.out;
}

// The number after `key` on its line of `text` ("completions: 4"), or -1.
int NumberAfter(const std::string& text, const std::string& key) {
  const size_t at = text.find(key);
  if (at == std::string::npos) return -1;
  const size_t end = text.find_first_of("\n\" ,]", at + key.size());
  int value = -1;
  if (!absl::SimpleAtoi(text.substr(at + key.size(), end - at - key.size()), &value)) return -1;
  return value;
}

TEST(BatchJobManifestTest, IndexedJobRunsAsManyShardsAsItDeclaresOnAValidSpec) {
  const std::string yaml =
      ReadFile(std::string(ATOLL_SOURCE_DIR) + "/deploy/kubernetes/batch-job.yaml");
  ASSERT_FALSE(yaml.empty());
  EXPECT_TRUE(Has(yaml, "completionMode: Indexed"));
  const int completions = NumberAfter(yaml, "completions: ");
  EXPECT_GT(completions, 0);
  EXPECT_EQ(NumberAfter(yaml, "parallelism: "), completions);
  EXPECT_EQ(NumberAfter(yaml, "--shards="), completions);
  EXPECT_TRUE(Has(yaml, "\"batch\", \"run\", \"/spec/sweep.json\""));
  EXPECT_TRUE(Has(yaml, "--out=/results"));
  EXPECT_TRUE(Has(yaml, "mountPath: /results"));
  EXPECT_TRUE(Has(yaml, "mountPath: /spec"));
  // The ConfigMap's spec: the block under "sweep.json: |", indented 4.
  const size_t block = yaml.find("sweep.json: |\n");
  ASSERT_NE(block, std::string::npos);
  std::string spec;
  for (absl::string_view line : absl::StrSplit(absl::string_view(yaml).substr(block + 14), '\n')) {
    if (line.substr(0, 4) != "    ") break;
    absl::StrAppend(&spec, line.substr(4), "\n");
  }
  absl::StatusOr<v1::BatchSweep> sweep = ParseBatchSweep(spec, "batch-job.yaml");
  ASSERT_TRUE(sweep.ok()) << sweep.status() << "\n" << spec;
  // The same sweep as the example file.
  constexpr char kExample[] = "examples/sweeps/falling_circles.json";
  absl::StatusOr<v1::BatchSweep> example =
      ParseBatchSweep(ReadFile(std::string(ATOLL_SOURCE_DIR) + "/" + kExample), kExample);
  ASSERT_TRUE(example.ok()) << example.status();
  EXPECT_EQ(BatchSweepDigest(*sweep), BatchSweepDigest(*example));
}

}  // namespace
}  // namespace atl::client
