#include "client/cli/local_world_backend.h"

#include <chrono>
#include <utility>

#include "absl/strings/str_cat.h"
#include "atoll/viewer/draw_frame.h"

namespace atl::cli {
namespace {

// A draw frame at most this often (the viewer's refresh rate).
constexpr absl::Duration kFrameEvery = absl::Milliseconds(16);
// Owner slots a local scene may name (the protocol's maximum).
constexpr uint32_t kLocalSlots = 64;

}  // namespace

class LocalWorldBackend::Feed final : public viewer::WorldFeed {
 public:
  Feed(LocalWorldBackend* backend, bool aabbs) : backend_(backend), variant_(aabbs ? 1 : 0) {
    absl::MutexLock lock(&backend_->mu_);
    ++backend_->viewers_[variant_];
    backend_->render_wanted_ = true;
  }
  ~Feed() override {
    absl::MutexLock lock(&backend_->mu_);
    --backend_->viewers_[variant_];
  }

  absl::StatusOr<std::optional<std::string>> Next(absl::Duration timeout) override {
    LocalWorldBackend* b = backend_;
    absl::MutexLock lock(&b->mu_);
    auto ready = [this, b]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(b->mu_) {
      return b->stop_ || (b->frame_[variant_] != nullptr && b->version_[variant_] > seen_);
    };
    b->mu_.AwaitWithTimeout(absl::Condition(&ready), timeout);
    if (b->stop_) return absl::UnavailableError("atoll view is shutting down");
    if (!ready()) return std::nullopt;
    seen_ = b->version_[variant_];
    return *b->frame_[variant_];
  }

 private:
  LocalWorldBackend* const backend_;
  const int variant_;
  uint64_t seen_ = 0;
};

absl::StatusOr<std::unique_ptr<LocalWorldBackend>> LocalWorldBackend::ForScene(
    const std::string& id, const v1::SceneSpec& spec, const v1::WorldConfig& config) {
  v1::WorldConfig wanted = config;
  if (wanted.player_slots() == 0) wanted.set_player_slots(kLocalSlots);
  absl::StatusOr<v1::WorldConfig> normalized =
      sim::NormalizeWorldConfig(wanted, /*server_max_bodies=*/1000000);
  if (!normalized.ok()) return normalized.status();
  absl::StatusOr<std::unique_ptr<sim::Simulation>> sim =
      sim::Simulation::Create(spec, *normalized);
  if (!sim.ok()) return sim.status();
  std::unique_ptr<LocalWorldBackend> backend(new LocalWorldBackend(id, "scene"));
  backend->sim_ = *std::move(sim);
  backend->Start();
  return backend;
}

absl::StatusOr<std::unique_ptr<LocalWorldBackend>> LocalWorldBackend::ForRecording(
    const std::string& id, v1::Recording recording) {
  if (recording.checkpoints_size() == 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(id, ": the recording has no checkpoint to start from"));
  }
  absl::StatusOr<std::unique_ptr<sim::Simulation>> sim = sim::Simulation::Restore(
      recording.header().scene(), recording.header().config(), recording.checkpoints(0));
  if (!sim.ok()) return sim.status();
  std::unique_ptr<LocalWorldBackend> backend(new LocalWorldBackend(id, "recording"));
  const uint64_t start = (*sim)->tick();
  backend->sim_ = *std::move(sim);
  backend->recording_ = std::move(recording);
  while (backend->next_recorded_ < backend->recording_->ticks_size() &&
         backend->recording_->ticks(backend->next_recorded_).tick() <= start) {
    ++backend->next_recorded_;
  }
  backend->Start();
  return backend;
}

LocalWorldBackend::~LocalWorldBackend() { Stop(); }

void LocalWorldBackend::Stop() {
  {
    absl::MutexLock lock(&mu_);
    if (stop_) return;
    stop_ = true;
  }
  if (thread_.joinable()) thread_.join();
}

void LocalWorldBackend::Start() {
  {
    absl::MutexLock lock(&mu_);
    summary_.id = id_;
    summary_.kind = kind_;
    summary_.tick_rate_hz = sim_->config().tick_rate_hz();
    summary_.tick = sim_->tick();
    summary_.state_hash = sim_->hash();
    const WorldCounters counters = sim_->world().GetCounters();
    summary_.bodies = static_cast<uint32_t>(counters.bodies);
    summary_.awake_bodies = static_cast<uint32_t>(counters.awake_bodies);
  }
  thread_ = std::thread([this] { Run(); });
}

std::vector<viewer::WorldSummary> LocalWorldBackend::ListWorlds() const {
  absl::MutexLock lock(&mu_);
  return {summary_};
}

absl::StatusOr<std::unique_ptr<viewer::WorldFeed>> LocalWorldBackend::Follow(
    const std::string& world_id, const viewer::FeedOptions& options) {
  if (world_id != id_) return absl::NotFoundError(absl::StrCat("world '", world_id, "' not found"));
  {
    absl::MutexLock lock(&mu_);
    if (stop_) return absl::UnavailableError("atoll view is shutting down");
  }
  return std::unique_ptr<viewer::WorldFeed>(new Feed(this, options.aabbs));
}

bool LocalWorldBackend::StepOnce() {
  std::vector<v1::ConfirmedInput> inputs;
  const v1::RecordedTick* recorded = nullptr;
  if (recording_.has_value()) {
    if (next_recorded_ >= recording_->ticks_size()) return false;
    recorded = &recording_->ticks(next_recorded_++);
    inputs.assign(recorded->inputs().begin(), recorded->inputs().end());
  }
  const auto start = std::chrono::steady_clock::now();
  const absl::Status stepped = sim_->Step(inputs, nullptr);
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  absl::MutexLock lock(&mu_);
  step_ms_ = ms;
  if (!stepped.ok()) {
    std::fprintf(stderr, "atoll view: step failed: %s\n", std::string(stepped.message()).c_str());
    return false;
  }
  if (recorded != nullptr && !diverged_at_.has_value() &&
      sim_->hash() != recorded->state_hash()) {
    diverged_at_ = sim_->tick();
    expected_hash_ = recorded->state_hash();
  }
  summary_.tick = sim_->tick();
  summary_.state_hash = sim_->hash();
  const WorldCounters counters = sim_->world().GetCounters();
  summary_.bodies = static_cast<uint32_t>(counters.bodies);
  summary_.awake_bodies = static_cast<uint32_t>(counters.awake_bodies);
  summary_.sessions = static_cast<uint32_t>(viewers_[0] + viewers_[1]);
  return true;
}

void LocalWorldBackend::PublishLocked(bool force) {
  const absl::Time now = absl::Now();
  if (!force && !render_wanted_ && now - last_render_ < kFrameEvery) return;
  if (viewers_[0] + viewers_[1] == 0) return;
  viewer::DrawFrameInfo info;
  info.world_id = id_;
  info.tick_rate_hz = sim_->config().tick_rate_hz();
  info.step_ms = step_ms_;
  if (diverged_at_.has_value()) {
    info.hash_matches = false;
    info.expected_hash = expected_hash_;
    info.note = absl::StrCat("diverges from the recording at tick ", *diverged_at_, ".");
  }
  if (ended_) {
    absl::StrAppend(&info.note, info.note.empty() ? "" : " ", "End of the recording at tick ",
                    sim_->tick(), ".");
  }
  for (int variant = 0; variant < 2; ++variant) {
    if (viewers_[variant] == 0) continue;
    viewer::DrawFrameOptions options;
    options.aabbs = variant == 1;
    // Rendered under mu_: the feeds wait for it anyway, and only this
    // thread steps, so no step waits for a viewer.
    frame_[variant] =
        std::make_shared<const std::string>(viewer::DrawFrameJson(*sim_, info, options));
    ++version_[variant];
  }
  render_wanted_ = false;
  last_render_ = now;
}

void LocalWorldBackend::Run() {
  const absl::Duration period =
      absl::Seconds(1) / static_cast<int64_t>(sim_->config().tick_rate_hz());
  absl::Time next = absl::Now();
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      // Sleep until the next tick, waking early only to stop.
      mu_.AwaitWithDeadline(absl::Condition(&stop_), next);
      if (stop_) return;
    }
    bool stepped = false;
    bool ended = false;
    {
      absl::MutexLock lock(&mu_);
      ended = ended_;
    }
    if (!ended) {
      stepped = StepOnce();
      if (!stepped) {
        absl::MutexLock lock(&mu_);
        ended_ = true;
      }
    }
    {
      absl::MutexLock lock(&mu_);
      // At the end a frame saying so goes out once, and again for each new
      // viewer.
      PublishLocked(/*force=*/!stepped && !ended);
    }
    next += period;
    // Far behind (the machine was suspended, a huge world): restart the
    // clock instead of stepping as fast as possible to catch up.
    if (absl::Now() - next > 4 * period) next = absl::Now();
  }
}

}  // namespace atl::cli
