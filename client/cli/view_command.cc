// atoll view — the web viewer on a world of this process: a built-in scene or
// a JSON SceneSpec stepped at its tick rate, or a recording (.atrec) played
// back and opened in the replay inspector (scrub, step, verify), no server
// needed. Serves until SIGINT or SIGTERM.

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "atoll/sim/recording_format.h"
#include "atoll/viewer/replay_library.h"
#include "atoll/viewer/web_server.h"
#include "client/cli/cli_util.h"
#include "client/cli/commands.h"
#include "client/cli/local_world_backend.h"

ABSL_FLAG(std::string, listen, "127.0.0.1:8080",
          "view: HOST:PORT to serve the web viewer on; port 0 picks a free port");
ABSL_DECLARE_FLAG(uint32_t, tick_rate);

namespace atl::cli {

int RunViewCommand(const std::vector<std::string>& args) {
  if (args.size() != 1) return Usage("view needs one scene or recording");
  const std::string& what = args[0];
  std::string host;
  int port = 0;
  if (absl::Status s = viewer::ParseHostPort(absl::GetFlag(FLAGS_listen), "--listen", &host, &port);
      !s.ok()) {
    return Usage(std::string(s.message()));
  }
  // Block the stop signals before any thread starts, so that every thread
  // inherits the mask and sigwait below receives them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  std::unique_ptr<LocalWorldBackend> backend;
  // Uploads from the page can be inspected whatever is viewed.
  viewer::ReplayLibrary replays(viewer::ReplayLibraryOptions{});
  std::string id = std::filesystem::path(what).stem().string();
  std::string page = absl::StrCat("?world=", id);
  if (absl::EndsWith(what, ".atrec")) {
    absl::StatusOr<sim::ParsedRecording> read = sim::ReadRecording(what);
    if (!read.ok()) return Fail(read.status());
    if (!read->recording.header().world_id().empty()) id = read->recording.header().world_id();
    if (absl::Status s = replays.Add(id, what, read->recording); !s.ok()) return Fail(s);
    page = absl::StrCat("?recording=", id);
    absl::StatusOr<std::unique_ptr<LocalWorldBackend>> made =
        LocalWorldBackend::ForRecording(id, std::move(read->recording));
    if (!made.ok()) return Fail(made.status());
    backend = *std::move(made);
  } else {
    absl::StatusOr<v1::SceneSpec> spec = LoadScene(what);
    if (!spec.ok()) return Fail(spec.status());
    v1::WorldConfig config;
    config.set_tick_rate_hz(absl::GetFlag(FLAGS_tick_rate));
    absl::StatusOr<std::unique_ptr<LocalWorldBackend>> made =
        LocalWorldBackend::ForScene(id, *spec, config);
    if (!made.ok()) return Fail(made.status());
    backend = *std::move(made);
  }
  viewer::WebServerOptions options;
  options.listen = absl::GetFlag(FLAGS_listen);
  options.title = "atoll view";
  options.replays = &replays;
  absl::StatusOr<std::unique_ptr<viewer::WebServer>> server =
      viewer::WebServer::Start(options, backend.get());
  if (!server.ok()) return Fail(server.status());
  std::printf("atoll view listening on %s\n", (*server)->address().c_str());
  std::printf("open %s%s (Ctrl-C to stop)\n", (*server)->url().c_str(), page.c_str());
  std::fflush(stdout);
  int signal_number = 0;
  sigwait(&stop_signals, &signal_number);
  (*server)->Stop();
  backend->Stop();
  return 0;
}

}  // namespace atl::cli
