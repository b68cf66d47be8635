// atoll loadtest [--server=HOST:PORT] [--worlds=32] [--bodies=500]
//                [--clients=128] [--seconds=10] [--tick_hz=60]
//                [--scene=falling_squares] [--settle_seconds=120]
//                [--tick_priority=-1]
//
// Its own server runs its tick threads under SCHED_FIFO (--tick_priority;
// by default when this user may): a tick that falls due then preempts the
// server's I/O threads and the load generator at once.
//
// The load generator runs at --client_niceness (default 19, the lowest
// priority): its clients stand in for players on other machines, and at the
// server's priority on a 2-core machine they take the cores of the server
// being measured (docs/benchmarks.md gives both figures).
//
// Every world is the built-in --scene at the largest size that has at most
// --bodies bodies (static ones included), each world with its own seed. The
// default, falling_squares, is a heap of boxes that keeps the whole world
// busy; a scene that starts at rest, such as pyramid, measures the service
// around sleeping worlds. Client i watches world i % worlds; the first client of a world
// plays its only slot (sending no input), the others join as acking
// spectators. Every client reads each message, applies delta snapshots to
// the snapshot it acked (checking the hash) and acks every snapshot, as a
// real client would.
//
// Lateness and missed ticks come from the server's scheduler
// (WorldInfo.lateness_histogram_us50, late_ticks, skipped_ticks) over the
// --seconds window; stderr also gets them second by second, so that a run
// that misses ticks shows when. Bytes are gRPC message bytes received
// (protobuf plus the 5-byte gRPC prefix, before HTTP/2 framing). The
// settled figure is measured over 2 s once every world reports no awake
// body (waiting at most --settle_seconds; nan when they do not settle).
//
// Over the same window a probe thread, at the priority the process started
// with, calls ListWorlds, GetWorld and CreateWorld (then DestroyWorld) every
// 100 ms with a 2 s deadline, as a backend's control client would; the
// slowest call kind's p99 goes in the CSV, each kind's p50/p99 and failures
// to stderr. When the load test started the server itself it also reports
// the CPU each side used over the window, in cores (CPU seconds per second):
// the server's tick threads (named atoll-tick), its other threads (gRPC,
// sending, recording) and the load generator's clients. Its own server also
// serves Prometheus metrics (--metrics_listen on a free port); the load test
// prints one scrape of them at the end.
//
// Before any of that it times one world of the scene on one thread in its
// own process (calibration_ms_per_tick), and over the window it reads how
// much CPU the hypervisor took from this machine (steal_cores, the last
// CSV column, from /proc/stat): the figures of two runs compare only as
// far as these agree.

#include "client/cli/loadtest_command.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <grpcpp/grpcpp.h>
#include <httplib.h>

#include "absl/flags/flag.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "atoll/client/connection.h"
#include "atoll/client/snapshot_bases.h"
#include "atoll/scene.h"
#include "atoll/world.h"
#include "atoll/v1/session.grpc.pb.h"
#include "atoll/v1/world.grpc.pb.h"
#include "client/cli/probe_process.h"
#include "client/cli/thread_cpu.h"
#include "client/cli/viewer_load.h"

ABSL_FLAG(int32_t, worlds, 32, "loadtest: worlds to create");
ABSL_FLAG(int32_t, bodies, 500, "loadtest: bodies per world (at least 4)");
ABSL_FLAG(int32_t, clients, 128, "loadtest: streaming clients, spread over the worlds");
ABSL_FLAG(int32_t, seconds, 10,
          "loadtest: length of the measured window; probe: how long to probe (0: until "
          "stdin closes); seconds");
ABSL_FLAG(int32_t, tick_hz, 60, "loadtest: tick rate of every world");
ABSL_FLAG(int32_t, client_niceness, 19,
          "loadtest: nice increment (0..19) of the load generator itself, applied after "
          "starting its own server: the clients stand in for players on other machines and "
          "should not take the cores of the server they measure (0: same priority)");
ABSL_FLAG(int32_t, settle_seconds, 120,
          "loadtest: how long to wait for every world to fall asleep before measuring the "
          "settled stream (0: do not measure it)");
ABSL_FLAG(int32_t, viewers, 0,
          "loadtest: web viewers following the first world's live view (its own server only, "
          "started with --http_listen): what a viewer costs the tick threads");
ABSL_FLAG(int32_t, tick_priority, -1,
          "loadtest: --tick_priority of its own server: the SCHED_FIFO priority of its tick "
          "threads, 1..99 (0: normal scheduling; -1: 1 when this user may run realtime "
          "threads, else 0)");
ABSL_FLAG(std::string, scene, "falling_squares",
          "loadtest: built-in scene of every world, at the largest size with at most --bodies "
          "bodies");

namespace atl::cli {
namespace {

constexpr int kGrpcPrefixBytes = 5;
constexpr absl::Duration kSettledWindow = absl::Seconds(2);

// Whether a thread of this process may run under SCHED_FIFO (root,
// CAP_SYS_NICE or RLIMIT_RTPRIO): then so may the server it starts.
bool MayRunRealtime() {
  bool may = false;
  std::thread probe([&may] {
    sched_param param{};
    param.sched_priority = 1;
    may = pthread_setschedparam(pthread_self(), SCHED_FIFO, &param) == 0;
  });
  probe.join();
  return may;
}

// An atoll-server started by the load test.
class ChildServer {
 public:
  static absl::StatusOr<std::unique_ptr<ChildServer>> Start(int max_worlds, bool viewer,
                                                             int tick_priority) {
    char self[4096];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0) return absl::InternalError("cannot find this binary (/proc/self/exe)");
    self[n] = '\0';
    std::string path(self);
    path = path.substr(0, path.rfind('/') + 1) + "atoll-server";
    const std::string worlds_flag = absl::StrCat("--max_worlds=", max_worlds);
    const std::string priority_flag = absl::StrCat("--tick_priority=", tick_priority);
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) return absl::InternalError("pipe failed");
    const pid_t pid = fork();
    if (pid < 0) return absl::InternalError("fork failed");
    if (pid == 0) {
      dup2(fds[1], STDOUT_FILENO);
      dup2(fds[1], STDERR_FILENO);
      execl(path.c_str(), path.c_str(), "--listen=127.0.0.1:0", "--metrics_listen=127.0.0.1:0",
            worlds_flag.c_str(), priority_flag.c_str(),
            viewer ? "--http_listen=127.0.0.1:0" : "--http_listen=",
            static_cast<char*>(nullptr));
      _exit(127);
    }
    close(fds[1]);
    std::unique_ptr<ChildServer> child(new ChildServer(pid, fds[0]));
    const absl::Time deadline = absl::Now() + absl::Seconds(10);
    std::string out;
    // The gRPC address, the viewer's URL when asked for, then the metrics
    // URL (server/main.cc prints them in that order).
    auto line_after = [&out](const char* marker) -> std::optional<std::string> {
      const size_t at = out.find(marker);
      const size_t eol = at == std::string::npos ? at : out.find('\n', at);
      if (eol == std::string::npos) return std::nullopt;
      return out.substr(at + std::strlen(marker), eol - at - std::strlen(marker));
    };
    while (absl::Now() < deadline) {
      pollfd p{fds[0], POLLIN, 0};
      if (poll(&p, 1, 100) <= 0) continue;
      char buf[1024];
      const ssize_t got = read(fds[0], buf, sizeof(buf));
      if (got <= 0) break;
      out.append(buf, static_cast<size_t>(got));
      std::optional<std::string> address = line_after("listening on ");
      std::optional<std::string> metrics = line_after("metrics at ");
      if (address.has_value() && metrics.has_value()) {
        child->address_ = *std::move(address);
        child->metrics_url_ = *std::move(metrics);
        if (viewer) {
          std::optional<std::string> url = line_after("viewer at ");
          if (!url.has_value()) break;
          child->viewer_origin_ = url->substr(0, url->find('/', std::strlen("http://")));
        }
        child->StartDraining();
        return child;
      }
    }
    return absl::UnavailableError(absl::StrCat(path, " did not start: ", out));
  }

  ~ChildServer() {
    kill(pid_, SIGTERM);
    int status = 0;
    waitpid(pid_, &status, 0);
    if (drain_.joinable()) drain_.join();  // the pipe ends with the server
    close(fd_);
  }

  const std::string& address() const { return address_; }
  // http://HOST:PORT/metrics
  const std::string& metrics_url() const { return metrics_url_; }
  pid_t pid() const { return pid_; }
  // http://HOST:PORT of the web viewer (with viewers only).
  const std::string& viewer_origin() const { return viewer_origin_; }

 private:
  ChildServer(pid_t pid, int fd) : pid_(pid), fd_(fd) {}
  // Once started, the server's output goes on to this process's stderr: a
  // pipe nobody read would fill up and block whichever server thread wrote
  // to it next, a tick thread among them.
  void StartDraining() {
    drain_ = std::thread([fd = fd_] {
      char buf[4096];
      ssize_t got;
      while ((got = read(fd, buf, sizeof(buf))) > 0) {
        (void)!write(STDERR_FILENO, buf, static_cast<size_t>(got));
      }
    });
  }
  pid_t pid_;
  int fd_;
  std::thread drain_;
  std::string address_;
  std::string metrics_url_;
  std::string viewer_origin_;
};

// GET `url` (http://HOST:PORT/PATH) and return the body, or the error.
absl::StatusOr<std::string> HttpGet(const std::string& url) {
  constexpr char kScheme[] = "http://";
  if (url.rfind(kScheme, 0) != 0) return absl::InvalidArgumentError("not an http URL: " + url);
  const size_t path_at = url.find('/', std::strlen(kScheme));
  const std::string origin = url.substr(0, path_at);
  httplib::Client http(origin);
  http.set_connection_timeout(std::chrono::seconds(5));
  http.set_read_timeout(std::chrono::seconds(5));
  httplib::Result result = http.Get(path_at == std::string::npos ? "/" : url.substr(path_at));
  if (!result) {
    return absl::UnavailableError(
        absl::StrCat("GET ", url, ": ", httplib::to_string(result.error())));
  }
  if (result->status != 200) {
    return absl::UnavailableError(absl::StrCat("GET ", url, ": status ", result->status));
  }
  return result->body;
}

// One streaming session. Reads on gRPC's callback threads; writes Acks one
// at a time from OnWriteDone.
class LoadClient final : public grpc::ClientBidiReactor<v1::ClientMessage, v1::ServerMessage> {
 public:
  LoadClient(v1::SessionService::Stub* stub, const v1::Join& join) {
    v1::ClientMessage m;
    *m.mutable_join() = join;
    stub->async()->Connect(&context_, this);
    Send(std::move(m));
    StartRead(&incoming_);
    StartCall();
  }

  void OnReadDone(bool ok) override {
    if (!ok) return;  // OnDone follows with the status.
    bytes_.fetch_add(incoming_.ByteSizeLong() + kGrpcPrefixBytes, std::memory_order_relaxed);
    if (incoming_.has_frame()) frames_.fetch_add(1, std::memory_order_relaxed);
    if (incoming_.has_snapshot()) HandleSnapshot(incoming_.snapshot());
    StartRead(&incoming_);
  }

  void OnWriteDone(bool ok) override {
    absl::MutexLock lock(&mu_);
    writing_ = false;
    if (ok && !outgoing_.empty()) StartNextWriteLocked();
  }

  void OnDone(const grpc::Status& status) override {
    absl::MutexLock lock(&mu_);
    done_ = true;
    status_ = status;
  }

  void Cancel() { context_.TryCancel(); }
  bool WaitDone(absl::Duration timeout) {
    absl::MutexLock lock(&mu_);
    return mu_.AwaitWithTimeout(absl::Condition(&done_), timeout);
  }
  bool ready() const { return snapshots_.load() > 0; }
  bool ended() {
    absl::MutexLock lock(&mu_);
    return done_;
  }
  grpc::Status status() {
    absl::MutexLock lock(&mu_);
    return status_;
  }
  uint64_t bytes() const { return bytes_.load(); }
  uint64_t frames() const { return frames_.load(); }
  uint64_t deltas() const { return deltas_.load(); }
  uint64_t bad_snapshots() const { return bad_.load(); }

 private:
  void HandleSnapshot(const v1::Snapshot& s) {
    // The client library's delta handling: the bases a real client keeps,
    // so a bad delta is a protocol failure, not this client's bookkeeping
    // (under lag the server's base is older than the newest snapshot).
    if (!bases_.Accept(s).ok()) {
      bad_.fetch_add(1);
      return;
    }
    if (!s.full()) deltas_.fetch_add(1);
    snapshots_.fetch_add(1);
    v1::ClientMessage ack;
    ack.mutable_ack()->set_snapshot_tick(s.tick());
    Send(std::move(ack));
  }

  void Send(v1::ClientMessage m) {
    absl::MutexLock lock(&mu_);
    outgoing_.push_back(std::move(m));
    // Every ack is newer than the queued ones: keep only the newest.
    while (outgoing_.size() > 1 && outgoing_.front().has_ack()) outgoing_.pop_front();
    if (!writing_) StartNextWriteLocked();
  }

  void StartNextWriteLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    writing_message_ = std::move(outgoing_.front());
    outgoing_.pop_front();
    writing_ = true;
    StartWrite(&writing_message_);
  }

  grpc::ClientContext context_;
  v1::ServerMessage incoming_;
  // Touched only by the reading callback (one read at a time).
  client::SnapshotBases bases_;
  std::atomic<uint64_t> bytes_{0}, frames_{0}, snapshots_{0}, deltas_{0}, bad_{0};
  absl::Mutex mu_;
  std::deque<v1::ClientMessage> outgoing_ ABSL_GUARDED_BY(mu_);
  v1::ClientMessage writing_message_ ABSL_GUARDED_BY(mu_);
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool done_ ABSL_GUARDED_BY(mu_) = false;
  grpc::Status status_ ABSL_GUARDED_BY(mu_);
};

struct SchedulerTotals {
  std::vector<uint64_t> histogram;
  uint64_t late = 0;
  uint64_t skipped = 0;
  uint64_t reduced = 0;
  uint64_t awake = 0;
};

absl::StatusOr<SchedulerTotals> ReadTotals(v1::WorldService::Stub* worlds,
                                           const std::vector<std::string>& ids) {
  SchedulerTotals t;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  v1::ListWorldsResponse list;
  if (grpc::Status s = worlds->ListWorlds(&context, v1::ListWorldsRequest(), &list); !s.ok()) {
    return client::FromGrpcStatus(s, "ListWorlds");
  }
  size_t found = 0;
  for (const v1::WorldInfo& w : list.worlds()) {
    bool ours = false;
    for (const std::string& id : ids) ours |= id == w.world_id();
    if (!ours) continue;
    ++found;
    if (t.histogram.size() < static_cast<size_t>(w.lateness_histogram_us50_size())) {
      t.histogram.resize(w.lateness_histogram_us50_size(), 0);
    }
    for (int i = 0; i < w.lateness_histogram_us50_size(); ++i) {
      t.histogram[i] += w.lateness_histogram_us50(i);
    }
    t.late += w.late_ticks();
    t.skipped += w.skipped_ticks();
    t.reduced += w.reduced_send_ticks();
    t.awake += w.awake_body_count();
  }
  if (found != ids.size()) return absl::NotFoundError("a load-test world disappeared");
  return t;
}

// The upper edge of the bucket holding quantile q, in ms.
double Percentile(const std::vector<uint64_t>& histogram, double q) {
  uint64_t total = 0;
  for (uint64_t c : histogram) total += c;
  if (total == 0) return 0;
  uint64_t seen = 0;
  for (size_t i = 0; i < histogram.size(); ++i) {
    seen += histogram[i];
    if (static_cast<double>(seen) >= q * static_cast<double>(total)) {
      return static_cast<double>((i + 1) * 50) / 1000.0;
    }
  }
  return static_cast<double>(histogram.size() * 50) / 1000.0;
}

// What the scheduler did between two readings: the histogram's counts of
// `to` less those of `from`.
std::vector<uint64_t> HistogramBetween(const SchedulerTotals& from, const SchedulerTotals& to) {
  std::vector<uint64_t> window = to.histogram;
  for (size_t i = 0; i < window.size() && i < from.histogram.size(); ++i) {
    window[i] -= from.histogram[i];
  }
  return window;
}

// Sleeps out the measured window, printing each second's ticks to stderr:
// how many started, their p99 and worst lateness, the missed ones (late or
// skipped) and those that sent less, so that a run that misses ticks shows
// when. `start` is the window's first reading.
void WatchWindow(v1::WorldService::Stub* worlds, const std::vector<std::string>& ids,
                 const SchedulerTotals& start, absl::Time t0, int seconds) {
  SchedulerTotals last = start;
  for (int second = 1; second <= seconds; ++second) {
    absl::SleepFor(t0 + absl::Seconds(second) - absl::Now());
    absl::StatusOr<SchedulerTotals> now = ReadTotals(worlds, ids);
    if (!now.ok()) {
      std::fprintf(stderr, "loadtest: second %d: not read: %s\n", second,
                   std::string(now.status().message()).c_str());
      continue;
    }
    const std::vector<uint64_t> window = HistogramBetween(last, *now);
    uint64_t ticks = 0;
    size_t worst = 0;
    for (size_t i = 0; i < window.size(); ++i) {
      ticks += window[i];
      if (window[i] != 0) worst = i;
    }
    std::fprintf(stderr,
                 "loadtest: second %d: %" PRIu64 " ticks, lateness p99 %.2f ms, worst < %.2f "
                 "ms, %" PRIu64 " missed, %" PRIu64 " sent less\n",
                 second, ticks, Percentile(window, 0.99),
                 static_cast<double>((worst + 1) * 50) / 1000.0,
                 (now->late - last.late) + (now->skipped - last.skipped),
                 now->reduced - last.reduced);
    last = *std::move(now);
  }
}

uint64_t Sum(const std::vector<std::unique_ptr<LoadClient>>& clients,
             uint64_t (LoadClient::*field)() const) {
  uint64_t sum = 0;
  for (const auto& c : clients) sum += (c.get()->*field)();
  return sum;
}

int Fail(const std::string& message) {
  std::fprintf(stderr, "atoll: loadtest: %s\n", message.c_str());
  return 1;
}

// The largest size of built-in scene `name` with at most `bodies` bodies
// (scenes grow with their size).
absl::StatusOr<int32_t> SceneSizeFor(const std::string& name, int32_t bodies) {
  auto count = [&](int32_t size) -> absl::StatusOr<size_t> {
    absl::StatusOr<SceneDesc> desc = MakeScene(name, {.size = size});
    if (!desc.ok()) return desc.status();
    return desc->bodies.size();
  };
  absl::StatusOr<size_t> smallest = count(1);
  if (!smallest.ok()) return absl::InvalidArgumentError(absl::StrCat("--scene: ", smallest.status().message()));
  if (*smallest > static_cast<size_t>(bodies)) {
    return absl::InvalidArgumentError(absl::StrCat("--bodies: scene ", name, " has ", *smallest,
                                                   " bodies at its smallest size, more than ",
                                                   bodies));
  }
  int32_t lo = 1, hi = bodies;  // count(lo) <= bodies
  while (lo < hi) {
    const int32_t mid = lo + (hi - lo + 1) / 2;
    absl::StatusOr<size_t> n = count(mid);
    if (n.ok() && *n <= static_cast<size_t>(bodies)) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

// The machine's speed, so that a slow run can be told from a regression:
// one world of the load's scene (seed 1, the first world's), stepped here on
// one thread for kCalibrationTicks ticks at the load's tick rate before the
// server starts; the median of three such runs, in ms a tick. The host of a
// virtual machine can take a third of its speed away for an hour.
constexpr int kCalibrationTicks = 120;

absl::StatusOr<double> CalibrateTickMs(const std::string& scene, int32_t size, int tick_hz) {
  absl::StatusOr<SceneDesc> desc = MakeScene(scene, {.size = size});
  if (!desc.ok()) return desc.status();
  std::vector<double> runs;
  for (int run = 0; run < 3; ++run) {
    absl::StatusOr<std::unique_ptr<World>> world = BuildWorld(*desc);
    if (!world.ok()) return world.status();
    const absl::Time start = absl::Now();
    for (int tick = 0; tick < kCalibrationTicks; ++tick) {
      if (absl::Status s = (*world)->Step(1.0f / static_cast<float>(tick_hz)); !s.ok()) return s;
    }
    runs.push_back(absl::ToDoubleMilliseconds(absl::Now() - start) / kCalibrationTicks);
  }
  std::sort(runs.begin(), runs.end());
  return runs[1];
}

}  // namespace

int RunLoadTestCommand(const std::string& server, const client::ChannelOptions& channel_options) {
  // The load generator shares the machine with the server it measures: no
  // debug-build deadlock detection on its per-message locks.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  const int n_worlds = absl::GetFlag(FLAGS_worlds);
  const int bodies = absl::GetFlag(FLAGS_bodies);
  const int n_clients = absl::GetFlag(FLAGS_clients);
  const int seconds = absl::GetFlag(FLAGS_seconds);
  const int tick_hz = absl::GetFlag(FLAGS_tick_hz);
  const int settle_seconds = absl::GetFlag(FLAGS_settle_seconds);
  const int client_niceness = absl::GetFlag(FLAGS_client_niceness);
  const int n_viewers = absl::GetFlag(FLAGS_viewers);
  int tick_priority = absl::GetFlag(FLAGS_tick_priority);
  if (tick_priority < -1 || tick_priority > 99) return Fail("--tick_priority: -1..99");
  if (n_viewers < 0 || (n_viewers > 0 && !server.empty())) {
    return Fail("--viewers: 0 or more, and only with the load test's own server (no --server)");
  }
  if (n_worlds < 1 || bodies < 4 || n_clients < 0 || seconds < 1 || tick_hz < 1 ||
      tick_hz > 240 || settle_seconds < 0 || client_niceness < 0 || client_niceness > 19) {
    return Fail("want --worlds >= 1, --bodies >= 4, --clients >= 0, --seconds >= 1, "
                "--tick_hz 1..240, --settle_seconds >= 0, --client_niceness 0..19");
  }
  const absl::Duration settle_timeout = absl::Seconds(settle_seconds);
  const std::string scene = absl::GetFlag(FLAGS_scene);
  const absl::StatusOr<int32_t> size = SceneSizeFor(scene, bodies);
  if (!size.ok()) return Fail(std::string(size.status().message()));
  std::fprintf(stderr, "loadtest: scene %s, size %d (%zu bodies)\n", scene.c_str(), *size,
               MakeScene(scene, {.size = *size})->bodies.size());
  const absl::StatusOr<double> tick_ms = CalibrateTickMs(scene, *size, tick_hz);
  if (!tick_ms.ok()) return Fail(absl::StrCat("calibration: ", tick_ms.status().message()));
  std::fprintf(stderr,
               "loadtest: calibration: one world steps its first %d ticks in %.3f ms a tick here "
               "(one thread, median of 3); %d such worlds at %d Hz would keep %.2f cores busy\n",
               kCalibrationTicks, *tick_ms, n_worlds, tick_hz, *tick_ms * n_worlds * tick_hz / 1e3);

  std::unique_ptr<ChildServer> child;
  std::string address = server;
  if (address.empty()) {
    // One more world than the load's for the control probe's CreateWorld.
    if (tick_priority == -1) tick_priority = MayRunRealtime() ? 1 : 0;
    std::fprintf(stderr, "loadtest: server tick threads %s\n",
                 tick_priority > 0
                     ? absl::StrCat("under SCHED_FIFO, priority ", tick_priority).c_str()
                     : "at normal priority (--tick_priority=0, or this user may not run "
                       "realtime threads)");
    auto started =
        ChildServer::Start(std::max(64, n_worlds + 1), n_viewers > 0, tick_priority);
    if (!started.ok()) return Fail(std::string(started.status().message()));
    child = *std::move(started);
    address = child->address();
  }
  std::fprintf(stderr, "loadtest: server %s%s\n", address.c_str(),
               child != nullptr ? " (started here)" : "");
  const client::ChannelOptions options =
      child != nullptr ? client::ChannelOptions() : channel_options;
  std::vector<std::string> ids;
  const std::string prefix = absl::StrCat("load-", getpid(), "-");
  for (int i = 0; i < n_worlds; ++i) ids.push_back(absl::StrCat(prefix, i));
  // Forked before the priority drops, so it keeps the caller's: it stands
  // in for a control client on another machine (probe_process.h).
  absl::StatusOr<std::unique_ptr<ProbeProcess>> probe =
      ProbeProcess::Fork(address, ids[0], options.tls_ca_path);
  if (!probe.ok()) return Fail(std::string(probe.status().message()));
  // Only this process (the server was forked before): its threads, all
  // created from here on, inherit the calling thread's nice value.
  errno = 0;
  if (client_niceness > 0 && nice(client_niceness) == -1 && errno != 0) {
    std::fprintf(stderr, "loadtest: could not lower the clients' priority\n");
  }

  auto channel = client::MakeChannel(address, options);
  if (!channel.ok()) return Fail(std::string(channel.status().message()));
  auto world_stub = v1::WorldService::NewStub(*channel);
  std::vector<std::string> tokens;
  for (int i = 0; i < n_worlds; ++i) {
    v1::CreateWorldRequest request;
    request.set_world_id(ids[i]);
    request.mutable_scene()->mutable_builtin()->set_name(scene);
    request.mutable_scene()->mutable_builtin()->set_size(*size);
    request.mutable_scene()->mutable_builtin()->set_seed(static_cast<uint64_t>(i) + 1);
    request.mutable_config()->set_tick_rate_hz(static_cast<uint32_t>(tick_hz));
    request.mutable_config()->set_player_slots(1);
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    v1::CreateWorldResponse response;
    if (grpc::Status s = world_stub->CreateWorld(&context, request, &response); !s.ok()) {
      return Fail(std::string(client::FromGrpcStatus(s, "CreateWorld").message()));
    }
    tokens.push_back(response.tokens(0).token());
  }

  // One connection per client, as separate players would have.
  client::ChannelOptions own = options;
  own.own_connection = true;
  std::vector<std::unique_ptr<v1::SessionService::Stub>> session_stubs;
  for (int i = 0; i < n_clients; ++i) {
    session_stubs.push_back(v1::SessionService::NewStub(*client::MakeChannel(address, own)));
  }
  std::vector<std::unique_ptr<LoadClient>> clients;
  for (int i = 0; i < n_clients; ++i) {
    v1::Join join;
    join.set_world_id(ids[i % n_worlds]);
    if (i < n_worlds) {
      join.set_slot(1);
      join.set_token(tokens[i]);
    } else {
      join.set_spectate(true);
    }
    clients.push_back(
        std::make_unique<LoadClient>(session_stubs[i].get(), join));
  }
  int exit_code = 0;
  auto cleanup = [&]() {
    for (auto& c : clients) c->Cancel();
    for (auto& c : clients) c->WaitDone(absl::Seconds(10));
    for (const std::string& id : ids) {
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
      v1::DestroyWorldRequest request;
      request.set_world_id(id);
      v1::DestroyWorldResponse response;
      world_stub->DestroyWorld(&context, request, &response);
    }
    return exit_code;
  };

  const absl::Time join_deadline = absl::Now() + absl::Seconds(30);
  for (auto& c : clients) {
    while (!c->ready() && !c->ended() && absl::Now() < join_deadline) {
      absl::SleepFor(absl::Milliseconds(5));
    }
    if (!c->ready()) {
      exit_code = Fail(absl::StrCat("a client did not get its first snapshot: ",
                                    c->ended() ? c->status().error_message() : "timeout"));
      return cleanup();
    }
  }

  std::unique_ptr<ViewerLoad> viewers;
  if (n_viewers > 0) {
    viewers = std::make_unique<ViewerLoad>(child->viewer_origin(), ids[0], n_viewers);
    absl::SleepFor(absl::Seconds(1));  // connected and streaming
  }

  // The measured window.
  auto before = ReadTotals(world_stub.get(), ids);
  if (!before.ok()) {
    exit_code = Fail(std::string(before.status().message()));
    return cleanup();
  }
  const uint64_t bytes0 = Sum(clients, &LoadClient::bytes);
  const uint64_t viewer_frames0 = viewers != nullptr ? viewers->frames() : 0;
  auto read_server_cpu = [&]() -> absl::StatusOr<std::map<pid_t, ThreadCpu>> {
    if (child == nullptr) return absl::NotFoundError("remote server");
    return ReadThreadCpu(child->pid());
  };
  absl::StatusOr<std::map<pid_t, ThreadCpu>> server_cpu0 = read_server_cpu();
  absl::StatusOr<std::map<pid_t, ThreadCpu>> client_cpu0 = ReadThreadCpu(getpid());
  const absl::StatusOr<double> steal0 = ReadStealSeconds();
  (*probe)->Begin();
  const absl::Time t0 = absl::Now();
  WatchWindow(world_stub.get(), ids, *before, t0, seconds);
  const uint64_t bytes1 = Sum(clients, &LoadClient::bytes);
  const uint64_t viewer_frames1 = viewers != nullptr ? viewers->frames() : 0;
  const absl::Time t1 = absl::Now();
  absl::StatusOr<ProbeResults> probed = (*probe)->End();
  if (!probed.ok()) {
    exit_code = Fail(std::string(probed.status().message()));
    return cleanup();
  }
  absl::StatusOr<std::map<pid_t, ThreadCpu>> server_cpu1 = read_server_cpu();
  const absl::StatusOr<double> steal1 = ReadStealSeconds();
  absl::StatusOr<std::map<pid_t, ThreadCpu>> client_cpu1 = ReadThreadCpu(getpid());
  auto after = ReadTotals(world_stub.get(), ids);
  if (!after.ok()) {
    exit_code = Fail(std::string(after.status().message()));
    return cleanup();
  }
  const std::vector<uint64_t> window = HistogramBetween(*before, *after);
  const uint64_t missed = (after->late - before->late) + (after->skipped - before->skipped);
  std::fprintf(stderr, "loadtest: tick start lateness p90 %.2f, p95 %.2f, p99 %.2f, p99.9 %.2f ms\n",
               Percentile(window, 0.9), Percentile(window, 0.95), Percentile(window, 0.99),
               Percentile(window, 0.999));
  const double window_s = absl::ToDoubleSeconds(t1 - t0);
  if (viewers != nullptr) {
    std::fprintf(stderr,
                 "loadtest: %d web viewers of %s: %.1f frames per second each, %d failed\n",
                 n_viewers, ids[0].c_str(),
                 static_cast<double>(viewer_frames1 - viewer_frames0) / window_s / n_viewers,
                 viewers->failed());
    if (viewers->failed() != 0) exit_code = 1;
    viewers.reset();
  }
  // Cores used by each side over the window; nan where not measured.
  double tick_cores = NAN, server_other_cores = NAN, client_cores = NAN;
  int tick_threads = 0;
  if (server_cpu0.ok() && server_cpu1.ok()) {
    double other = 0.0;
    tick_cores = CpuBetween(*server_cpu0, *server_cpu1, "atoll-tick", &other) / window_s;
    server_other_cores = other / window_s;
    for (const auto& [tid, cpu] : *server_cpu1) {
      tick_threads += cpu.name.rfind("atoll-tick", 0) == 0 ? 1 : 0;
    }
  }
  if (client_cpu0.ok() && client_cpu1.ok()) {
    client_cores =
        (CpuBetween(*client_cpu0, *client_cpu1, "", nullptr) + probed->cpu_seconds) / window_s;
  }
  // What the hypervisor took from this machine over the window.
  const double steal_cores =
      steal0.ok() && steal1.ok() ? (*steal1 - *steal0) / window_s : NAN;
  std::fprintf(stderr,
               "loadtest: CPU over the window, cores: server tick threads (%d) %.2f, server "
               "other threads %.2f, load clients %.2f (machine: %ld cores, %.2f of them taken "
               "by the hypervisor)%s\n",
               tick_threads, tick_cores, server_other_cores, client_cores,
               sysconf(_SC_NPROCESSORS_ONLN), steal_cores,
               child == nullptr ? "; the server is remote, not measured" : "");
  double control_p99 = 0.0;
  int control_failures = 0;
  for (const ProbeCall& call : probed->calls) {
    control_p99 = std::max(control_p99, call.p99_ms);
    control_failures += call.failed;
    std::fprintf(stderr, "loadtest: %s: %d calls, p50 %.2f ms, p99 %.2f ms, max %.2f ms, %d failed\n",
                 call.name.c_str(), call.calls, call.p50_ms, call.p99_ms, call.max_ms,
                 call.failed);
  }
  if (control_failures > 0) exit_code = 1;
  const double per_client_per_s =
      n_clients == 0 ? 0.0
                     : static_cast<double>(bytes1 - bytes0) / n_clients /
                           absl::ToDoubleSeconds(t1 - t0);

  // The settled stream: once nothing is awake anywhere.
  std::string settled = "nan";
  const absl::Time settle_deadline = absl::Now() + settle_timeout;
  uint64_t awake = after->awake;
  while (awake != 0 && absl::Now() < settle_deadline) {
    absl::SleepFor(absl::Milliseconds(250));
    auto t = ReadTotals(world_stub.get(), ids);
    if (!t.ok()) {
      exit_code = Fail(std::string(t.status().message()));
      return cleanup();
    }
    awake = t->awake;
  }
  if (awake != 0) {
    std::fprintf(stderr, "loadtest: %" PRIu64 " bodies still awake after %s\n", awake,
                 absl::FormatDuration(settle_timeout).c_str());
  } else if (n_clients > 0) {
    // Wait out a snapshot period so the first settled delta is not counted
    // against a busy base.
    absl::SleepFor(absl::Seconds(1) + absl::Seconds(60.0 / tick_hz));
    const uint64_t b0 = Sum(clients, &LoadClient::bytes);
    const uint64_t f0 = Sum(clients, &LoadClient::frames);
    absl::SleepFor(kSettledWindow);
    const uint64_t b1 = Sum(clients, &LoadClient::bytes);
    const uint64_t f1 = Sum(clients, &LoadClient::frames);
    if (f1 > f0) settled = absl::StrCat(static_cast<double>(b1 - b0) / static_cast<double>(f1 - f0));
  }
  if (child != nullptr) {
    // The server's own account of the run (issue 21: deploy/README.md's
    // Metrics), as an operator's Prometheus would scrape it.
    absl::StatusOr<std::string> scrape = HttpGet(child->metrics_url());
    if (scrape.ok()) {
      std::fprintf(stderr, "loadtest: the server's metrics (GET %s):\n%s",
                   child->metrics_url().c_str(), scrape->c_str());
    } else {
      std::fprintf(stderr, "loadtest: no metrics: %s\n",
                   std::string(scrape.status().message()).c_str());
    }
  }
  const uint64_t bad = Sum(clients, &LoadClient::bad_snapshots);
  std::fprintf(stderr, "loadtest: %" PRIu64 " delta snapshots applied, %" PRIu64 " bad\n",
               Sum(clients, &LoadClient::deltas), bad);
  for (auto& c : clients) {
    if (c->ended()) {
      std::fprintf(stderr, "loadtest: a session ended early: %s\n",
                   c->status().error_message().c_str());
      exit_code = 1;
      break;
    }
  }
  if (bad != 0) exit_code = 1;
  std::fprintf(stderr,
               "worlds,bodies,clients,tick_hz,p50_lateness_ms,p99_lateness_ms,missed_ticks,"
               "bytes_per_client_per_s,settled_bytes_per_client_per_tick,control_p99_ms,"
               "control_failures,server_tick_cores,server_other_cores,client_cores,"
               "reduced_send_ticks,calibration_ms_per_tick,steal_cores\n");
  std::printf("%d,%d,%d,%d,%.2f,%.2f,%" PRIu64 ",%.0f,%s,%.2f,%d,%.2f,%.2f,%.2f,%" PRIu64
              ",%.3f,%.2f\n",
              n_worlds, bodies, n_clients, tick_hz, Percentile(window, 0.5),
              Percentile(window, 0.99), missed, per_client_per_s, settled.c_str(), control_p99,
              control_failures, tick_cores, server_other_cores, client_cores,
              after->reduced - before->reduced, *tick_ms, steal_cores);
  std::fflush(stdout);
  return cleanup();
}

}  // namespace atl::cli
