#include "world_registry.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace atl::server {
namespace {

constexpr char kSuffix[] = ".atrec";

// `field` names the id in the message.
absl::Status ValidateWorldId(const std::string& id, const std::string& field) {
  if (id.empty() || id.size() > 64) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": must be 1..64 characters, got ", id.size()));
  }
  for (char c : id) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '_' || c == '-';
    if (!ok) {
      return absl::InvalidArgumentError(
          absl::StrCat(field, ": only [A-Za-z0-9_-] allowed, got '", id, "'"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<WorldRegistry>> WorldRegistry::Create(
    const RegistryOptions& options) {
  if (!options.data_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(options.data_dir) / "worlds", ec);
    if (ec) {
      return absl::InternalError(
          absl::StrCat("data_dir: cannot create ", options.data_dir, "/worlds: ", ec.message()));
    }
  }
  std::unique_ptr<WorldRegistry> registry(new WorldRegistry(options));
  if (!registry->scheduler_.status().ok()) return registry->scheduler_.status();
  return registry;
}

WorldRegistry::~WorldRegistry() { Shutdown(); }

std::string WorldRegistry::RecordingPath(const std::string& world_id) const {
  if (options_.data_dir.empty()) return "";
  return absl::StrCat(options_.data_dir, "/worlds/", world_id, kSuffix);
}

WorldHostOptions WorldRegistry::NextHostOptions() {
  WorldHostOptions host = options_.host;
  absl::MutexLock lock(&mu_);
  host.phase = next_phase_;
  next_phase_ += 0x9E3779B9u;  // 2^32 / golden ratio
  return host;
}

std::vector<std::string> WorldRegistry::RecoverAll() {
  std::vector<std::string> messages;
  if (options_.data_dir.empty()) return messages;
  std::vector<std::string> paths;
  std::error_code ec;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::filesystem::path(options_.data_dir) / "worlds", ec)) {
    if (absl::EndsWith(entry.path().string(), kSuffix)) paths.push_back(entry.path().string());
  }
  std::sort(paths.begin(), paths.end());
  for (const std::string& path : paths) {
    absl::StatusOr<std::shared_ptr<WorldHost>> host = WorldHost::Recover(path, NextHostOptions());
    if (!host.ok()) {
      messages.push_back(absl::StrCat("not restored: ", std::string(host.status().message())));
      continue;
    }
    {
      absl::MutexLock lock(&mu_);
      worlds_[(*host)->id()] = *host;
    }
    messages.push_back(absl::StrCat("restored world ", (*host)->id(), " at tick ",
                                    (*host)->tick()));
    scheduler_.Add(*host);
  }
  return messages;
}

absl::StatusOr<v1::CreateWorldResponse> WorldRegistry::CreateWorld(
    const v1::CreateWorldRequest& request) {
  absl::StatusOr<v1::WorldConfig> config =
      NormalizeWorldConfig(request.config(), options_.max_bodies_per_world);
  if (!config.ok()) return config.status();
  std::string id = request.world_id();
  {
    absl::MutexLock lock(&mu_);
    if (id.empty()) {
      do {
        id = absl::StrCat("w-", next_id_++);
      } while (worlds_.count(id) != 0);
    }
    // Reserve the id while the world is built outside the lock.
    if (absl::Status s = ReserveLocked(id, "world_id"); !s.ok()) return s;
  }
  std::vector<v1::SlotToken> tokens;
  absl::StatusOr<std::shared_ptr<WorldHost>> host = WorldHost::Create(
      id, request.scene(), *config, RecordingPath(id), NextHostOptions(), &tokens);
  absl::MutexLock lock(&mu_);
  if (!host.ok()) {
    worlds_.erase(id);
    return host.status();
  }
  worlds_[id] = *host;
  scheduler_.Add(*host);
  v1::CreateWorldResponse response;
  *response.mutable_world() = (*host)->Info();
  for (v1::SlotToken& t : tokens) *response.add_tokens() = std::move(t);
  return response;
}

absl::Status WorldRegistry::ReserveLocked(const std::string& id, const std::string& field) {
  if (shut_down_) return absl::UnavailableError("the server is shutting down");
  if (worlds_.size() >= options_.max_worlds) {
    return absl::ResourceExhaustedError(absl::StrCat(field, ": the server already hosts ",
                                                     worlds_.size(), " worlds (--max_worlds=",
                                                     options_.max_worlds, ")"));
  }
  if (absl::Status s = ValidateWorldId(id, field); !s.ok()) return s;
  if (worlds_.count(id) != 0) {
    return absl::AlreadyExistsError(absl::StrCat(field, ": '", id, "' already exists"));
  }
  worlds_[id] = nullptr;
  // The id is this server's again: sessions asking for it join it here.
  moved_.erase(id);
  return absl::OkStatus();
}

absl::StatusOr<v1::WorldExport> WorldRegistry::ExportWorld(const v1::ExportWorldRequest& request) {
  absl::StatusOr<std::shared_ptr<WorldHost>> host = Find(request.world_id());
  if (!host.ok()) return host.status();
  std::string archive_dir;
  if (!options_.data_dir.empty()) {
    std::error_code ec;
    const std::filesystem::path dir = std::filesystem::path(options_.data_dir) / "exported";
    std::filesystem::create_directories(dir, ec);
    if (ec) {
      return absl::InternalError(
          absl::StrCat("data_dir: cannot create ", dir.string(), ": ", ec.message()));
    }
    archive_dir = dir.string();
  }
  absl::StatusOr<v1::WorldExport> exported = (*host)->Export(request.redirect_to(), archive_dir);
  if (!exported.ok()) return exported.status();
  absl::MutexLock lock(&mu_);
  auto it = worlds_.find(request.world_id());
  if (it != worlds_.end() && it->second == *host) worlds_.erase(it);
  if (!request.redirect_to().empty()) {
    v1::Redirect& r = moved_[request.world_id()];
    r.set_world_id(request.world_id());
    r.set_address(request.redirect_to());
    r.set_tick(exported->checkpoint().tick());
    moved_order_.push_back(request.world_id());
    while (moved_order_.size() > kRememberedMoves) {
      // An id may be listed twice (moved, came back, moved again): only
      // its last listing forgets it.
      const std::string oldest = std::move(moved_order_.front());
      moved_order_.pop_front();
      if (std::find(moved_order_.begin(), moved_order_.end(), oldest) == moved_order_.end()) {
        moved_.erase(oldest);
      }
    }
  }
  return exported;
}

std::optional<v1::Redirect> WorldRegistry::MovedTo(const std::string& world_id) const {
  absl::MutexLock lock(&mu_);
  auto it = moved_.find(world_id);
  if (it == moved_.end()) return std::nullopt;
  return it->second;
}

absl::StatusOr<v1::WorldInfo> WorldRegistry::ImportWorld(const v1::ImportWorldRequest& request) {
  const v1::RecordingHeader& header = request.world().header();
  absl::StatusOr<v1::WorldConfig> config =
      NormalizeWorldConfig(header.config(), options_.max_bodies_per_world);
  if (!config.ok()) {
    return absl::Status(config.status().code(),
                        absl::StrCat("world.header.", std::string(config.status().message())));
  }
  const std::string& id = header.world_id();
  {
    absl::MutexLock lock(&mu_);
    if (absl::Status s = ReserveLocked(id, "world.header.world_id"); !s.ok()) return s;
  }
  absl::StatusOr<std::shared_ptr<WorldHost>> host =
      WorldHost::Import(request.world(), *config, RecordingPath(id), NextHostOptions());
  absl::MutexLock lock(&mu_);
  if (!host.ok()) {
    worlds_.erase(id);
    return host.status();
  }
  worlds_[id] = *host;
  // Its next tick was due on the exporting server already.
  scheduler_.Add(*host, /*at_once=*/true);
  return (*host)->Info();
}

absl::StatusOr<std::shared_ptr<WorldHost>> WorldRegistry::Find(const std::string& world_id) const {
  absl::MutexLock lock(&mu_);
  auto it = worlds_.find(world_id);
  if (it == worlds_.end() || it->second == nullptr) {
    return absl::NotFoundError(absl::StrCat("world_id: no world '", world_id, "'"));
  }
  return it->second;
}

absl::Status WorldRegistry::DestroyWorld(const std::string& world_id) {
  std::shared_ptr<WorldHost> host;
  {
    absl::MutexLock lock(&mu_);
    auto it = worlds_.find(world_id);
    if (it == worlds_.end() || it->second == nullptr) {
      return absl::NotFoundError(absl::StrCat("world_id: no world '", world_id, "'"));
    }
    host = std::move(it->second);
    worlds_.erase(it);
  }
  host->Stop(grpc::Status(grpc::StatusCode::ABORTED, "the world was destroyed"), false, true);
  return absl::OkStatus();
}

std::vector<std::shared_ptr<WorldHost>> WorldRegistry::List() const {
  absl::MutexLock lock(&mu_);
  std::vector<std::shared_ptr<WorldHost>> out;
  for (const auto& [id, host] : worlds_) {
    if (host != nullptr) out.push_back(host);
  }
  return out;
}

void WorldRegistry::Shutdown() {
  std::vector<std::shared_ptr<WorldHost>> hosts;
  {
    absl::MutexLock lock(&mu_);
    if (shut_down_) return;
    shut_down_ = true;
    for (const auto& [id, host] : worlds_) {
      if (host != nullptr) hosts.push_back(host);
    }
  }
  for (const auto& host : hosts) {
    host->Stop(grpc::Status(grpc::StatusCode::UNAVAILABLE, "the server is shutting down"), true,
               false);
  }
}

}  // namespace atl::server
