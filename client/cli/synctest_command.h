// atoll CLI — the synctest command.

#ifndef ATOLL_CLIENT_CLI_SYNCTEST_COMMAND_H_
#define ATOLL_CLIENT_CLI_SYNCTEST_COMMAND_H_

#include <string>
#include <vector>

namespace atl::cli {

/// Runs a local sync test of a built-in scene (args: the scene name).
/// Returns 0 when no tick diverged, 1 on divergence or error, 2 on usage.
int RunSyncTestCommand(const std::vector<std::string>& args);

}  // namespace atl::cli

#endif  // ATOLL_CLIENT_CLI_SYNCTEST_COMMAND_H_
