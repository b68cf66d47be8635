// atoll CLI — the loadtest command.

#ifndef ATOLL_CLIENT_CLI_LOADTEST_COMMAND_H_
#define ATOLL_CLIENT_CLI_LOADTEST_COMMAND_H_

#include <string>

#include "atoll/client/connection.h"

namespace atl::cli {

/// Loads an atoll-server with --worlds worlds of --bodies bodies stepping at
/// --tick_hz and --clients streaming sessions that read every frame and ack
/// every snapshot (applying deltas) for --seconds, then waits for the
/// worlds to fall asleep and measures the settled stream. Starts its own
/// atoll-server (the binary next to this one) when `server` is empty.
/// Prints one CSV line: worlds,bodies,clients,tick_hz,p50_lateness_ms,
/// p99_lateness_ms,missed_ticks,bytes_per_client_per_s,
/// settled_bytes_per_client_per_tick (the header goes to stderr).
/// `channel` applies to a named server (the started one is plaintext).
/// Returns 0 when it measured, 1 on an error.
int RunLoadTestCommand(const std::string& server, const client::ChannelOptions& channel);

}  // namespace atl::cli

#endif  // ATOLL_CLIENT_CLI_LOADTEST_COMMAND_H_
