#include "atoll/client/batch_dir.h"

#include <fcntl.h>
#include <google/protobuf/util/json_util.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "absl/synchronization/mutex.h"
#include "atoll/client/batch_sweep.h"

namespace atl::client {
namespace {

namespace fs = std::filesystem;

constexpr absl::string_view kRecordPrefix = "run-";
constexpr absl::string_view kTempMarker = ".json.tmp-";

std::string JoinPath(const std::string& dir, absl::string_view name) {
  return (fs::path(dir) / std::string(name)).string();
}

absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) return absl::DataLossError(absl::StrCat(path, ": read failed"));
  return text.str();
}

// Creates (or truncates) `path` with `content` and syncs it to disk.
absl::Status WriteWholeFile(const std::string& path, const std::string& content) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return absl::InternalError(absl::StrCat(path, ": ", std::strerror(errno)));
  size_t written = 0;
  while (written < content.size()) {
    const ssize_t n = ::write(fd, content.data() + written, content.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int error = errno;
      ::close(fd);
      return absl::InternalError(absl::StrCat(path, ": ", std::strerror(error)));
    }
    written += static_cast<size_t>(n);
  }
  // A record renamed into place must be whole even if the node dies next.
  const bool synced = ::fsync(fd) == 0;
  const int error = errno;
  if (::close(fd) != 0 || !synced) {
    return absl::InternalError(absl::StrCat(path, ": ", std::strerror(error)));
  }
  return absl::OkStatus();
}

std::string TempName(absl::string_view name) {
  return absl::StrCat(".", name, ".tmp-", ::getpid());
}

// `all_fields`: zeros too (a record always lists every counter).
absl::StatusOr<std::string> ToJson(const google::protobuf::Message& message, bool all_fields) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.always_print_primitive_fields = all_fields;
  options.preserve_proto_field_names = true;
  std::string json;
  const auto status = google::protobuf::util::MessageToJsonString(message, &json, options);
  if (!status.ok()) return absl::InternalError(std::string(status.message()));
  return json;
}

// The run index of a hidden temporary record name (".run-000042.json.tmp-
// 123"), or -1.
int64_t TempRunIndex(absl::string_view name) {
  if (!absl::ConsumePrefix(&name, ".") || !absl::ConsumePrefix(&name, kRecordPrefix)) return -1;
  const size_t marker = name.find(kTempMarker);
  uint64_t index = 0;
  if (marker == absl::string_view::npos || !absl::SimpleAtoi(name.substr(0, marker), &index)) {
    return -1;
  }
  return static_cast<int64_t>(index);
}

}  // namespace

std::string RunRecordFileName(uint64_t index) {
  return absl::StrFormat("%s%06u.json", kRecordPrefix, index);
}

absl::StatusOr<v1::BatchSweep> ReadSweepFile(const std::string& dir) {
  const std::string path = JoinPath(dir, kSweepFileName);
  absl::StatusOr<std::string> text = ReadWholeFile(path);
  if (!text.ok()) {
    return absl::NotFoundError(
        absl::StrCat(path, ": cannot open (is ", dir, " the --out folder of a batch run?)"));
  }
  return ParseBatchSweep(*text, path);
}

absl::Status PrepareSweepDir(const std::string& dir, const v1::BatchSweep& sweep) {
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) return absl::InternalError(absl::StrCat(dir, ": ", error.message()));
  const std::string path = JoinPath(dir, kSweepFileName);
  if (!fs::exists(path)) {
    absl::StatusOr<std::string> json = ToJson(sweep, /*all_fields=*/false);
    if (!json.ok()) return json.status();
    const std::string temp = JoinPath(dir, TempName(kSweepFileName));
    if (absl::Status s = WriteWholeFile(temp, *json); !s.ok()) return s;
    // link() fails when the name exists: of two shards racing here, one
    // writes the file and the other compares against it below.
    const int linked = ::link(temp.c_str(), path.c_str());
    const int link_error = errno;
    ::unlink(temp.c_str());
    if (linked == 0) return absl::OkStatus();
    if (link_error != EEXIST) {
      return absl::InternalError(absl::StrCat(path, ": ", std::strerror(link_error)));
    }
  }
  absl::StatusOr<v1::BatchSweep> existing = ReadSweepFile(dir);
  if (!existing.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat(dir, " is not the folder of this sweep: ", existing.status().message(),
                     "; use a new --out folder"));
  }
  const std::string ours = BatchSweepDigest(sweep);
  const std::string theirs = BatchSweepDigest(*existing);
  if (ours != theirs) {
    return absl::FailedPreconditionError(absl::StrCat(dir, " holds another sweep (", path,
                                                      ": digest ", theirs, ", this sweep: ", ours,
                                                      "); use a new --out folder"));
  }
  return absl::OkStatus();
}

absl::StatusOr<v1::BatchRunRecord> ReadRunRecord(const std::string& path) {
  absl::StatusOr<std::string> text = ReadWholeFile(path);
  if (!text.ok()) return text.status();
  v1::BatchRunRecord record;
  const auto status = google::protobuf::util::JsonStringToMessage(*text, &record);
  if (!status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(path, ": not an atl.v1.BatchRunRecord: ", std::string(status.message())));
  }
  return record;
}

absl::Status WriteRunRecord(const std::string& dir, const v1::BatchRunRecord& record) {
  absl::StatusOr<std::string> json = ToJson(record, /*all_fields=*/true);
  if (!json.ok()) return json.status();
  const std::string name = RunRecordFileName(record.run_index());
  const std::string path = JoinPath(dir, name);
  const std::string temp = JoinPath(dir, TempName(name));
  if (absl::Status s = WriteWholeFile(temp, *json); !s.ok()) return s;
  if (fs::exists(path)) {
    // Another process ran this run meanwhile: deterministic runs agree.
    ::unlink(temp.c_str());
    absl::StatusOr<v1::BatchRunRecord> existing = ReadRunRecord(path);
    std::string difference;
    if (!existing.ok()) {
      difference = std::string(existing.status().message());
    } else if (SameRun(*existing, record, &difference) &&
               (existing->final_hash() != record.final_hash() ||
                existing->chain_digest() != record.chain_digest())) {
      difference = absl::StrCat("final hash ", existing->final_hash(), " and chain digest ",
                                existing->chain_digest(), " instead of ", record.final_hash(),
                                " and ", record.chain_digest());
    }
    if (difference.empty()) return absl::OkStatus();
    return absl::AlreadyExistsError(
        absl::StrCat(path, " exists with different content: ", difference));
  }
  if (::rename(temp.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temp.c_str());
    return absl::InternalError(absl::StrCat(path, ": ", std::strerror(error)));
  }
  return absl::OkStatus();
}

absl::StatusOr<ShardSummary> RunShard(const std::string& dir, const v1::BatchSweep& sweep,
                                      const ShardOptions& options,
                                      const std::function<void(const ShardEvent&)>& observe) {
  if (options.shards < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("shards: must be at least 1, got ", options.shards));
  }
  if (options.shard < 0 || options.shard >= options.shards) {
    return absl::InvalidArgumentError(absl::StrCat("shard index ", options.shard,
                                                   " is out of range: ", options.shards,
                                                   " shards are numbered 0..", options.shards - 1));
  }
  if (options.threads < 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("threads: must be at least 1, got ", options.threads));
  }
  if (absl::Status s = PrepareSweepDir(dir, sweep); !s.ok()) return s;
  const std::string digest = BatchSweepDigest(sweep);
  const uint64_t runs = CountSweepRuns(sweep);
  const uint64_t shard = static_cast<uint64_t>(options.shard);
  const uint64_t shards = static_cast<uint64_t>(options.shards);

  // Temporaries a killed run of this shard left behind (other shards' are
  // theirs: they may be writing them right now).
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, error)) {
    const int64_t index = TempRunIndex(entry.path().filename().string());
    if (index >= 0 && static_cast<uint64_t>(index) % shards == shard) {
      fs::remove(entry.path(), error);
    }
  }

  ShardSummary summary;
  std::vector<uint64_t> todo;
  std::vector<v1::BatchRunRecord> done_before;
  for (uint64_t index = shard; index < runs; index += shards) {
    ++summary.runs;
    const std::string path = JoinPath(dir, RunRecordFileName(index));
    if (!fs::exists(path)) {
      todo.push_back(index);
      continue;
    }
    absl::StatusOr<v1::BatchRunRecord> existing = ReadRunRecord(path);
    std::string difference;
    if (!existing.ok()) {
      difference = std::string(existing.status().message());
    } else {
      SameRun(*existing, NewRunRecord(sweep, digest, index), &difference);
    }
    if (!difference.empty()) {
      return absl::AlreadyExistsError(absl::StrCat(path,
                                                   " exists with different content: ", difference,
                                                   "; remove it or use a new --out folder"));
    }
    done_before.push_back(*std::move(existing));
  }

  uint64_t done = 0;
  for (const v1::BatchRunRecord& record : done_before) {
    ++summary.skipped;
    observe({.record = &record, .skipped = true, .done = ++done, .total = summary.runs});
  }

  absl::Mutex mu;
  absl::Status first_error;
  std::atomic<size_t> next{0};
  std::atomic<bool> stop{false};
  auto work = [&] {
    while (!stop.load(std::memory_order_relaxed)) {
      const size_t i = next.fetch_add(1);
      if (i >= todo.size()) return;
      absl::StatusOr<v1::BatchRunRecord> record =
          options.run ? options.run(todo[i]) : RunSweepRun(sweep, digest, todo[i]);
      absl::Status status = record.ok() ? WriteRunRecord(dir, *record) : record.status();
      absl::MutexLock lock(&mu);
      if (!status.ok()) {
        if (first_error.ok()) first_error = status;
        stop.store(true);
        return;
      }
      ++summary.ran;
      observe({.record = &*record, .skipped = false, .done = ++done, .total = summary.runs});
    }
  };
  const int threads = static_cast<int>(std::min<size_t>(options.threads, todo.size()));
  std::vector<std::thread> workers;
  for (int t = 1; t < threads; ++t) workers.emplace_back(work);
  if (threads > 0) work();
  for (std::thread& worker : workers) worker.join();
  if (!first_error.ok()) return first_error;
  return summary;
}

absl::StatusOr<SweepDirCheck> CheckSweepDir(const std::string& dir) {
  if (!fs::is_directory(dir)) return absl::NotFoundError(absl::StrCat(dir, ": no such folder"));
  absl::StatusOr<v1::BatchSweep> sweep = ReadSweepFile(dir);
  if (!sweep.ok()) return sweep.status();
  SweepDirCheck check;
  check.sweep = *std::move(sweep);
  check.digest = BatchSweepDigest(check.sweep);
  check.runs = CountSweepRuns(check.sweep);

  std::vector<std::string> names;
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name[0] == '.' || !absl::EndsWith(name, ".json") ||
        name == kSweepFileName || !entry.is_regular_file()) {
      continue;
    }
    names.push_back(name);
  }
  if (error) return absl::InternalError(absl::StrCat(dir, ": ", error.message()));
  std::sort(names.begin(), names.end());

  // Run index -> (file names, the record to keep).
  std::map<uint64_t, std::pair<std::vector<std::string>, v1::BatchRunRecord>> found;
  for (const std::string& name : names) {
    const std::string path = JoinPath(dir, name);
    absl::StatusOr<v1::BatchRunRecord> record = ReadRunRecord(path);
    if (!record.ok()) {
      check.problems.push_back(absl::StrCat("foreign file ", record.status().message()));
      continue;
    }
    if (record->sweep_digest() != check.digest) {
      check.problems.push_back(absl::StrCat("foreign record ", path, ": of sweep ",
                                            record->sweep_digest(), ", this folder's is ",
                                            check.digest));
      continue;
    }
    if (record->run_index() >= check.runs) {
      check.problems.push_back(absl::StrCat("foreign record ", path, ": run ", record->run_index(),
                                            ", the sweep has runs 0..", check.runs - 1));
      continue;
    }
    std::string difference;
    if (!SameRun(*record, NewRunRecord(check.sweep, check.digest, record->run_index()),
                 &difference)) {
      check.problems.push_back(absl::StrCat("foreign record ", path, ": ", difference));
      continue;
    }
    auto& [files, kept] = found[record->run_index()];
    // The file under the run's own name is the one kept.
    if (files.empty() || name == RunRecordFileName(record->run_index())) kept = *record;
    files.push_back(name);
  }
  for (auto& [index, entry] : found) {
    auto& [files, record] = entry;
    if (files.size() > 1) {
      check.problems.push_back(absl::StrCat("duplicate records of run ", index, " in ", dir, ": ",
                                            absl::StrJoin(files, ", ")));
    } else if (files[0] != RunRecordFileName(index)) {
      check.problems.push_back(absl::StrCat("misnamed record ", JoinPath(dir, files[0]), ": run ",
                                            index, " belongs in ", RunRecordFileName(index)));
    }
    check.records.push_back(std::move(record));
  }
  uint64_t expected = 0;
  for (const v1::BatchRunRecord& record : check.records) {
    for (; expected < record.run_index(); ++expected) check.missing.push_back(expected);
    expected = record.run_index() + 1;
  }
  for (; expected < check.runs; ++expected) check.missing.push_back(expected);
  return check;
}

std::string FormatRunList(const std::vector<uint64_t>& runs, size_t limit) {
  std::vector<std::string> ranges;
  size_t i = 0;
  while (i < runs.size()) {
    size_t j = i;
    while (j + 1 < runs.size() && runs[j + 1] == runs[j] + 1) ++j;
    if (ranges.size() == limit) {
      ranges.push_back("...");
      break;
    }
    ranges.push_back(i == j ? absl::StrCat(runs[i]) : absl::StrCat(runs[i], "-", runs[j]));
    i = j + 1;
  }
  return absl::StrJoin(ranges, ", ");
}

}  // namespace atl::client
