// The `atoll` binary's help and usage errors: `atoll help`, `atoll help
// COMMAND` / `atoll COMMAND --help`, and the refusals (exit 2, one line and
// the command's usage) of unknown commands and flags, flags of another
// command, bad values and missing arguments. None of them needs a server:
// a refused command line must not get as far as contacting one.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/server_process.h"

namespace atl::client {
namespace {

using ::atl::testing::BinaryPath;
using ::atl::testing::RunCommand;

constexpr const char* kCommands[] = {"version", "health",   "worlds",  "create",
                                     "destroy", "watch",    "bot",     "query",
                                     "verify",  "batch",    "synctest",
                                     "loadtest", "probe", "view"};

// What `atoll args...` printed on one stream and its exit code (RunCommand
// merges the two streams, so the other one goes to /dev/null in a shell).
struct Result {
  int code = -1;
  std::string out;
};

Result Atoll(const std::vector<std::string>& args, bool stderr_only) {
  std::vector<std::string> argv = {"/bin/sh", "-c",
                                   stderr_only
                                       ? "exec \"$0\" \"$@\" 2>&1 >/dev/null"
                                       : "exec \"$0\" \"$@\" 2>/dev/null",
                                   BinaryPath("atoll")};
  argv.insert(argv.end(), args.begin(), args.end());
  Result run;
  run.code = RunCommand(argv, &run.out);
  return run;
}

Result Stdout(const std::vector<std::string>& args) {
  return Atoll(args, false);
}
Result Stderr(const std::vector<std::string>& args) {
  return Atoll(args, true);
}

bool Has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(CliHelpTest, VersionFlagPrintsTheVersionLikeTheCommand) {
  const Result flag = Stdout({"--version"});
  const Result command = Stdout({"version"});
  EXPECT_EQ(flag.code, 0) << flag.out;
  EXPECT_TRUE(Has(flag.out, "atoll ")) << flag.out;
  EXPECT_EQ(flag.out, command.out);
}

TEST(CliHelpTest, HelpListsEveryCommandOnStdout) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"help"}, {"--help"}, {"-h"}}) {
    const Result run = Stdout(args);
    EXPECT_EQ(run.code, 0) << args[0] << ": " << run.out;
    for (const char* command : kCommands) {
      EXPECT_TRUE(Has(run.out, std::string("\n  ") + command + " "))
          << command << ": " << run.out;
    }
    EXPECT_TRUE(Has(run.out, "`atoll help COMMAND` or `atoll COMMAND --help`"))
        << run.out;
  }
}

TEST(CliHelpTest, CommandHelpListsItsFlagsWithDefaultsAndAnExample) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"watch", "--help"}, {"help", "watch"}}) {
    const Result run = Stdout(args);
    EXPECT_EQ(run.code, 0) << run.out;
    EXPECT_TRUE(Has(run.out, "usage: atoll watch WORLD --server=HOST:PORT"))
        << run.out;
    // Defaults and help come from the flags' definitions.
    EXPECT_TRUE(Has(run.out, "--ticks=600 ")) << run.out;
    EXPECT_TRUE(Has(run.out, "--timeout=2s ")) << run.out;
    EXPECT_TRUE(Has(run.out, "--forever=false ")) << run.out;
    EXPECT_TRUE(Has(run.out, "watch: ticks between SVG frames")) << run.out;
    EXPECT_TRUE(Has(run.out, "example:\n  atoll watch ")) << run.out;
    // Only the flags watch reads.
    EXPECT_FALSE(Has(run.out, "--players")) << run.out;
    EXPECT_FALSE(Has(run.out, "--tls_ca")) << run.out;
  }
}

TEST(CliHelpTest, EveryCommandHasHelpWithDefinedFlags) {
  for (const char* command : kCommands) {
    const Result run = Stdout({"help", command});
    EXPECT_EQ(run.code, 0) << command << ": " << run.out;
    EXPECT_TRUE(Has(run.out, std::string("usage: atoll ") + command))
        << run.out;
    EXPECT_TRUE(Has(run.out, std::string("example:\n  atoll ") + command + " "))
        << run.out;
    // A flag name in the table that no ABSL_FLAG defines.
    EXPECT_FALSE(Has(run.out, "UNDEFINED FLAG")) << command << ": " << run.out;
  }
}

TEST(CliHelpTest, UnknownFlagIsRefusedWithTheCommandsUsage) {
  const Result run =
      Stderr({"bot", "w", "--server=127.0.0.1:1", "--no_such_flag"});
  EXPECT_EQ(run.code, 2) << run.out;
  EXPECT_TRUE(Has(run.out, "atoll bot: unknown flag --no_such_flag\n"))
      << run.out;
  EXPECT_TRUE(Has(run.out, "usage: atoll bot WORLD --server=HOST:PORT"))
      << run.out;
  EXPECT_EQ(Stdout({"bot", "w", "--server=127.0.0.1:1", "--no_such_flag"}).out,
            "");
}

TEST(CliHelpTest, FlagOfAnotherCommandIsRefused) {
  const Result run = Stderr({"worlds", "--server=127.0.0.1:1", "--ticks=3"});
  EXPECT_EQ(run.code, 2) << run.out;
  EXPECT_TRUE(Has(run.out, "atoll worlds: unknown flag --ticks\n")) << run.out;
  EXPECT_TRUE(Has(run.out, "usage: atoll worlds --server=HOST:PORT"))
      << run.out;
  // --tls_ca exists, but only health, loadtest and probe make TLS channels.
  const Result tls =
      Stderr({"create", "pyramid", "--server=127.0.0.1:1", "--tls_ca=ca.pem"});
  EXPECT_EQ(tls.code, 2) << tls.out;
  EXPECT_TRUE(Has(tls.out, "atoll create: unknown flag --tls_ca\n")) << tls.out;
}

TEST(CliHelpTest, MissingPositionalArgumentIsNamed) {
  const Result run = Stderr({"watch", "--server=127.0.0.1:1"});
  EXPECT_EQ(run.code, 2) << run.out;
  EXPECT_TRUE(Has(run.out, "atoll watch: missing WORLD")) << run.out;
  EXPECT_TRUE(Has(run.out, "usage: atoll watch WORLD")) << run.out;
  // A flag's value given as the next word is no positional argument.
  const Result synctest = Stderr({"synctest", "--ticks", "30"});
  EXPECT_EQ(synctest.code, 2) << synctest.out;
  EXPECT_TRUE(Has(synctest.out, "atoll synctest: missing SCENE"))
      << synctest.out;
  const Result extra = Stderr({"worlds", "extra", "--server=127.0.0.1:1"});
  EXPECT_EQ(extra.code, 2) << extra.out;
  EXPECT_TRUE(Has(extra.out, "atoll worlds: unexpected argument 'extra'"))
      << extra.out;
}

TEST(CliHelpTest, MissingRequiredFlagIsNamed) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"watch", "w"},
        {"health"},
        {"bot", "w", "--tokens=a"}}) {
    const Result run = Stderr(args);
    EXPECT_EQ(run.code, 2) << args[0] << ": " << run.out;
    EXPECT_TRUE(Has(run.out, "atoll " + args[0] + ": missing --server\n"))
        << run.out;
    EXPECT_TRUE(Has(run.out, "usage: atoll " + args[0] + " ")) << run.out;
  }
  // The bots cannot join without the slots' tokens.
  const Result bot = Stderr({"bot", "w", "--server=127.0.0.1:1"});
  EXPECT_EQ(bot.code, 2) << bot.out;
  EXPECT_TRUE(Has(bot.out, "atoll bot: missing --tokens\n")) << bot.out;
}

TEST(CliHelpTest, BadFlagValueIsAUsageError) {
  const Result run =
      Stderr({"watch", "w", "--server=127.0.0.1:1", "--ticks=many"});
  EXPECT_EQ(run.code, 2) << run.out;
  EXPECT_TRUE(Has(run.out, "atoll watch: ")) << run.out;
  EXPECT_TRUE(Has(run.out, "'many'")) << run.out;
  EXPECT_TRUE(Has(run.out, "usage: atoll watch WORLD")) << run.out;
}

TEST(CliHelpTest, UnknownOrNoCommandShowsTheGeneralUsageOnStderr) {
  const Result unknown = Stderr({"frobnicate"});
  EXPECT_EQ(unknown.code, 2) << unknown.out;
  EXPECT_TRUE(Has(unknown.out, "atoll: unknown command 'frobnicate'\n"))
      << unknown.out;
  EXPECT_TRUE(Has(unknown.out, "`atoll help COMMAND`")) << unknown.out;
  EXPECT_EQ(Stderr({"help", "frobnicate"}).code, 2);

  const Result none = Stderr({});
  EXPECT_EQ(none.code, 2) << none.out;
  EXPECT_TRUE(Has(none.out, "usage: atoll COMMAND")) << none.out;
  EXPECT_TRUE(Has(none.out, "`atoll help COMMAND`")) << none.out;
  EXPECT_EQ(Stdout({}).out, "");
}

}  // namespace
}  // namespace atl::client
