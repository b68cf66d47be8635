// atoll batch run SPEC --shard=N --shards=M --out=DIR — runs shard N's
// runs of a sweep with the engine in process; atoll batch merge DIR —
// checks that every run is recorded once and writes the CSV and the plot.
// The folder protocol is in atoll/client/batch_dir.h, the run numbering in
// atoll/client/batch_sweep.h.

#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "atoll/client/batch_dir.h"
#include "atoll/client/batch_results.h"
#include "atoll/client/batch_sweep.h"
#include "atoll/client/connection.h"
#include "atoll/snapshot.h"
#include "atoll/v1/batch.grpc.pb.h"
#include "client/cli/cli_util.h"
#include "client/cli/commands.h"

ABSL_FLAG(int32_t, shard, -1,
          "batch run: this shard's index, 0..shards-1 (run i belongs to shard i % shards); -1: "
          "$JOB_COMPLETION_INDEX (set by a Kubernetes Indexed Job), or 0 when unset");
ABSL_FLAG(int32_t, shards, 0,
          "batch run: how many shards share the sweep; 0: $ATOLL_BATCH_SHARDS, or 1 when unset");
ABSL_FLAG(std::string, out, "",
          "batch run: the results folder every shard of the sweep writes into");
ABSL_FLAG(int32_t, threads, 0,
          "batch run: runs simulated at once (with --server: runs in flight); 0: one per core");
ABSL_DECLARE_FLAG(std::string, server);

namespace atl::cli {
namespace {

constexpr char kShardEnv[] = "JOB_COMPLETION_INDEX";
constexpr char kShardsEnv[] = "ATOLL_BATCH_SHARDS";

// A flag's value, or when it is `unset` the environment variable `env`, or
// `fallback`. *source names where the value came from, for messages.
absl::StatusOr<int64_t> FlagOrEnv(int32_t flag, int32_t unset, const char* flag_name,
                                  const char* env, int64_t fallback, std::string* source) {
  if (flag != unset) {
    *source = absl::StrCat("--", flag_name);
    return flag;
  }
  const char* value = std::getenv(env);
  if (value == nullptr || *value == '\0') {
    *source = absl::StrCat("default (no --", flag_name, " nor $", env, ")");
    return fallback;
  }
  *source = absl::StrCat("$", env);
  int64_t parsed = 0;
  if (!absl::SimpleAtoi(value, &parsed) || parsed < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("$", env, "='", value, "' is not a number >= 0 (", flag_name, ")"));
  }
  return parsed;
}

absl::StatusOr<v1::BatchSweep> LoadSweep(const std::string& path) {
  std::ifstream in(path);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
  std::stringstream text;
  text << in.rdbuf();
  return client::ParseBatchSweep(text.str(), path);
}

// Runs run `index` through the server's BatchService. The server steps the
// same atoll::sim::Simulation as a local run, so the hashes agree; the
// counters come from its final snapshot, restored here.
absl::StatusOr<v1::BatchRunRecord> RunOnServer(v1::BatchService::Stub* stub,
                                               const std::string& address,
                                               const v1::BatchSweep& sweep,
                                               const std::string& digest, uint64_t index) {
  v1::BatchRunRecord record = client::NewRunRecord(sweep, digest, index);
  auto fail = [&](const absl::Status& status) {
    return absl::Status(
        status.code(), absl::StrCat("run ", index, " (", client::DescribeRunParams(record.params()),
                                    ") on ", address, ": ", status.message()));
  };
  v1::RunBatchRequest request;
  *request.mutable_scene() = client::SweepRunScene(sweep, record.params());
  request.set_steps(sweep.steps());
  request.set_tick_rate_hz(sweep.tick_rate_hz());
  request.set_progress_every(sweep.steps());  // no progress messages
  request.set_include_final_snapshot(true);
  grpc::ClientContext context;
  std::unique_ptr<grpc::ClientReader<v1::BatchUpdate>> reader = stub->Run(&context, request);
  v1::BatchUpdate update;
  std::optional<v1::BatchResult> result;
  while (reader->Read(&update)) {
    if (update.has_result()) result = std::move(*update.mutable_result());
  }
  if (const grpc::Status status = reader->Finish(); !status.ok()) {
    return fail(client::FromGrpcStatus(status, address));
  }
  if (!result.has_value() || result->hash_chain_size() != static_cast<int>(sweep.steps())) {
    return fail(absl::DataLossError("the batch ended without a complete result"));
  }
  absl::StatusOr<std::unique_ptr<World>> world = LoadSnapshot(result->final_snapshot());
  if (!world.ok()) return fail(world.status());
  if (HashWorld(**world) != result->final_hash()) {
    return fail(absl::DataLossError("the final snapshot does not match the final hash"));
  }
  record.set_initial_hash(client::HashHex(result->initial_hash()));
  record.set_final_hash(client::HashHex(result->final_hash()));
  record.set_chain_digest(client::HashChainDigest(
      std::span<const uint64_t>(result->hash_chain().data(), result->hash_chain_size())));
  record.set_wall_ms(result->timings().total_us() / 1000.0);
  record.set_ms_per_step(record.wall_ms() / sweep.steps());
  record.set_build_ms(result->timings().build_us() / 1000.0);
  const WorldCounters counters = (*world)->GetCounters();
  record.set_bodies(static_cast<uint32_t>(counters.bodies));
  record.set_contacts(static_cast<uint32_t>(counters.contacts));
  record.set_touching_contacts(static_cast<uint32_t>(counters.touching_contacts));
  record.set_awake_bodies(static_cast<uint32_t>(counters.awake_bodies));
  return record;
}

void DrawProgress(uint64_t done, uint64_t total) {
  constexpr int kWidth = 40;
  const int filled = total == 0 ? kWidth : static_cast<int>(done * kWidth / total);
  std::fprintf(stderr, "\r[%.*s%*s] %llu/%llu runs", filled,
               "########################################", kWidth - filled, "",
               static_cast<unsigned long long>(done), static_cast<unsigned long long>(total));
  std::fflush(stderr);
}

void PrintRunLine(const client::ShardEvent& event) {
  const v1::BatchRunRecord& r = *event.record;
  if (event.skipped) {
    std::printf("run %llu (%s): already recorded, final %s\n",
                static_cast<unsigned long long>(r.run_index()),
                client::DescribeRunParams(r.params()).c_str(), r.final_hash().c_str());
  } else {
    std::printf(
        "run %llu (%s): %u steps, %u bodies, %u contacts, %u awake, final %s, "
        "%.3f ms/step\n",
        static_cast<unsigned long long>(r.run_index()),
        client::DescribeRunParams(r.params()).c_str(), r.steps(), r.bodies(), r.contacts(),
        r.awake_bodies(), r.final_hash().c_str(), r.ms_per_step());
  }
  std::fflush(stdout);
}

bool WriteText(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  return static_cast<bool>(out);
}

}  // namespace

int RunBatchRunCommand(const std::vector<std::string>& args) {
  if (args.size() != 1) return Usage("batch run needs one sweep spec (a .json BatchSweep file)");
  const std::string out_dir = absl::GetFlag(FLAGS_out);
  if (out_dir.empty()) return Usage("batch run needs --out=DIR");
  absl::StatusOr<v1::BatchSweep> sweep = LoadSweep(args[0]);
  if (!sweep.ok()) return Fail(sweep.status());

  std::string shard_source, shards_source;
  absl::StatusOr<int64_t> shard =
      FlagOrEnv(absl::GetFlag(FLAGS_shard), -1, "shard", kShardEnv, 0, &shard_source);
  if (!shard.ok()) return Fail(shard.status());
  absl::StatusOr<int64_t> shards =
      FlagOrEnv(absl::GetFlag(FLAGS_shards), 0, "shards", kShardsEnv, 1, &shards_source);
  if (!shards.ok()) return Fail(shards.status());
  if (*shards < 1) return Fail(absl::StrCat("shards (", shards_source, "): must be at least 1"));
  if (*shard < 0 || *shard >= *shards) {
    return Fail(absl::StrCat("shard index ", *shard, " (", shard_source,
                             ") is out of range: ", *shards, " shards (", shards_source,
                             ") are numbered 0..", *shards - 1));
  }
  client::ShardOptions options;
  options.shard = *shard;
  options.shards = *shards;
  options.threads = absl::GetFlag(FLAGS_threads);
  if (options.threads < 0) return Usage("--threads must be >= 0");
  if (options.threads == 0) {
    options.threads = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  }

  // --server: the server's BatchService steps the runs; one channel for
  // all the threads (gRPC stubs are thread-safe).
  const std::string server = absl::GetFlag(FLAGS_server);
  std::unique_ptr<v1::BatchService::Stub> stub;
  if (!server.empty()) {
    stub = v1::BatchService::NewStub(client::MakeChannel(server));
    const std::string digest = client::BatchSweepDigest(*sweep);
    options.run = [&stub, &server, &sweep, digest](uint64_t index) {
      return RunOnServer(stub.get(), server, *sweep, digest, index);
    };
  }

  const bool bar = ::isatty(STDERR_FILENO) != 0;
  absl::StatusOr<client::ShardSummary> summary =
      client::RunShard(out_dir, *sweep, options, [bar](const client::ShardEvent& event) {
        if (bar) {
          DrawProgress(event.done, event.total);
        } else {
          PrintRunLine(event);
        }
      });
  if (bar) std::fputc('\n', stderr);
  if (!summary.ok()) return Fail(summary.status());
  std::printf("shard %lld of %lld: %llu runs (%llu run now, %llu already recorded) in %s%s\n",
              static_cast<long long>(*shard), static_cast<long long>(*shards),
              static_cast<unsigned long long>(summary->runs),
              static_cast<unsigned long long>(summary->ran),
              static_cast<unsigned long long>(summary->skipped), out_dir.c_str(),
              server.empty() ? "" : absl::StrCat(", stepped by ", server).c_str());
  return 0;
}

int RunBatchMergeCommand(const std::vector<std::string>& args) {
  if (args.size() != 1) return Usage("batch merge needs one results folder");
  const std::string& dir = args[0];
  absl::StatusOr<client::SweepDirCheck> check = client::CheckSweepDir(dir);
  if (!check.ok()) return Fail(check.status());
  if (!check->complete()) {
    for (const std::string& problem : check->problems) Fail(problem);
    if (!check->missing.empty()) {
      Fail(absl::StrCat(dir, ": ", check->missing.size(), " of ", check->runs,
                        " runs missing: ", client::FormatRunList(check->missing)));
    }
    return Fail(absl::StrCat(dir, " is incomplete (", check->missing.size(), " missing, ",
                             check->problems.size(),
                             " duplicate or foreign records): nothing written"));
  }
  const std::string csv = (std::filesystem::path(dir) / "results.csv").string();
  const std::string svg = (std::filesystem::path(dir) / "results.svg").string();
  const std::string name = check->sweep.name().empty() ? "sweep" : check->sweep.name();
  if (!WriteText(csv, client::ResultsCsv(check->records))) return Fail(csv + ": cannot write");
  if (!WriteText(svg, client::ResultsSvg(
                          absl::StrCat(name, " (", check->digest, "): ms per step against size"),
                          check->records))) {
    return Fail(svg + ": cannot write");
  }
  std::printf("%s %s: %llu runs, each recorded once\n", name.c_str(), check->digest.c_str(),
              static_cast<unsigned long long>(check->runs));
  std::printf("wrote %s (%zu rows)\n", csv.c_str(), check->records.size());
  std::printf("wrote %s (ms per step against size)\n", svg.c_str());
  return 0;
}

}  // namespace atl::cli
