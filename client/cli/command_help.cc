#include "client/cli/command_help.h"

#include <algorithm>
#include <cstdio>

#include "absl/flags/commandlineflag.h"
#include "absl/flags/reflection.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace atl::cli {
namespace {

constexpr size_t kWidth = 80;  // columns of the help text

// Abseil's own flags (flagfile expansion and friends): every command takes
// them, none shows them.
constexpr absl::string_view kGeneratorFlags[] = {"flagfile", "fromenv",
                                                 "tryfromenv", "undefok"};
// Asking for help, in Abseil's spellings and the usual short one.
constexpr absl::string_view kHelpFlags[] = {"help", "h", "helpfull",
                                            "helpshort"};

bool Contains(const auto& list, absl::string_view item) {
  return std::find(std::begin(list), std::end(list), item) != std::end(list);
}

// Appends `text` to *out, wrapped at kWidth columns. The first line starts at
// `column`; the following ones are indented by `indent`.
void AppendWrapped(absl::string_view text, size_t column, size_t indent,
                   std::string* out) {
  size_t at = column;
  bool first_word = true;
  for (absl::string_view word : absl::StrSplit(text, ' ', absl::SkipEmpty())) {
    if (!first_word && at + 1 + word.size() > kWidth) {
      absl::StrAppend(out, "\n", std::string(indent, ' '));
      at = indent;
    } else if (!first_word) {
      out->push_back(' ');
      ++at;
    }
    absl::StrAppend(out, word);
    at += word.size();
    first_word = false;
  }
  out->push_back('\n');
}

// "--name=DEFAULT" of a flag as it is defined ("" shown for an empty
// default, so the column never looks like a missing value).
std::string FlagWithDefault(const absl::CommandLineFlag& flag) {
  const std::string value = flag.DefaultValue();
  return absl::StrCat("--", flag.Name(), "=", value.empty() ? "\"\"" : value);
}

// One line and the command's help on stderr: the answer to any usage error.
int UsageError(const CommandSpec& command, absl::string_view message) {
  std::fprintf(stderr, "atoll %s: %.*s\n\n%s",
               std::string(command.name).c_str(),
               static_cast<int>(message.size()), message.data(),
               CommandHelp(command).c_str());
  return 2;
}

int UnknownCommand(absl::string_view name) {
  std::fprintf(stderr, "atoll: unknown command '%.*s'\n\n%s",
               static_cast<int>(name.size()), name.data(),
               GeneralUsage().c_str());
  return 2;
}

// One `--name[=value]` (or `-name`, `--noname`, `--name value`) of argv.
struct FlagArg {
  std::string name;     // as resolved: "forever" for --noforever
  std::string spelled;  // as typed, for messages
  // nullptr: no such flag in this binary.
  absl::CommandLineFlag* flag = nullptr;
  bool negative = false;        // --noname of a bool flag
  bool has_assignment = false;  // --name=...
  bool missing_value = false;   // a non-bool flag last on the line
  std::string value;
};

}  // namespace

const std::vector<CommandSpec>& AllCommands() {
  // Flags per command: what its Run* function and the helpers it calls read
  // (cli_util.cc: ServerAddress and Timeout read --server and --timeout,
  // LoadScene --size and --seed). Only health, loadtest and probe make channels
  // that honour --tls_ca.
  static const auto* const commands = new std::vector<CommandSpec>{
      {.name = "version",
       .summary =
           "print client and engine versions (and the server's with --server)",
       .usage = "atoll version [--server=HOST:PORT] [--timeout=D]",
       .flags = {"server", "timeout"},
       .example = "atoll version --server=127.0.0.1:50051"},
      {.name = "health",
       .summary = "exit 0 only when --server reports SERVING",
       .usage = "atoll health --server=HOST:PORT [flags]",
       .flags = {"server", "timeout", "tls_ca"},
       .required_flags = {"server"},
       .example = "atoll health --server=127.0.0.1:50051 --timeout=2s"},
      {.name = "worlds",
       .summary = "list the server's worlds",
       .usage = "atoll worlds --server=HOST:PORT [flags]",
       .flags = {"server", "timeout"},
       .required_flags = {"server"},
       .example = "atoll worlds --server=127.0.0.1:50051"},
      {.name = "create",
       .summary = "create a world from a SceneSpec JSON file or a built-in "
                  "scene; print its id and slot tokens",
       .usage = "atoll create SCENE --server=HOST:PORT [flags]",
       .arguments = "SCENE (a .json SceneSpec file or a built-in scene name)",
       .min_args = 1,
       .max_args = 1,
       .flags = {"server", "timeout", "id", "slots", "tick_rate", "input_delay",
                 "size", "seed"},
       .required_flags = {"server"},
       .example = "atoll create examples/pyramid_ram.json "
                  "--server=127.0.0.1:50051 --id=demo --slots=1"},
      {.name = "destroy",
       .summary = "destroy a world and delete its recording",
       .usage = "atoll destroy WORLD --server=HOST:PORT [flags]",
       .arguments = "WORLD (a world id)",
       .min_args = 1,
       .max_args = 1,
       .flags = {"server", "timeout"},
       .required_flags = {"server"},
       .example = "atoll destroy demo --server=127.0.0.1:50051"},
      {.name = "watch",
       .summary = "follow a world: ticks, awake bodies, events (--svg DIR)",
       .usage = "atoll watch WORLD --server=HOST:PORT [flags]",
       .arguments = "WORLD (a world id)",
       .min_args = 1,
       .max_args = 1,
       .flags = {"server", "timeout", "ticks", "forever", "every", "svg",
                 "svg_every"},
       .required_flags = {"server"},
       .example =
           "atoll watch demo --server=127.0.0.1:50051 --ticks=240 --every=15"},
      {.name = "bot",
       .summary = "simulated players that predict and roll back; prints stats",
       .usage = "atoll bot WORLD --server=HOST:PORT --tokens=T1,...,TN [flags]",
       .arguments = "WORLD (a world id)",
       .min_args = 1,
       .max_args = 1,
       .flags = {"server", "timeout", "tokens", "players", "ticks", "latency",
                 "window", "input_delay", "seed"},
       // The server hands a slot's token out once, to `atoll create`: without
       // them no bot can join.
       .required_flags = {"server", "tokens"},
       .example =
           "atoll bot demo --server=127.0.0.1:50051 --players=2 --tokens=T1,T2 "
           "--latency=30ms"},
      {.name = "query",
       .summary = "ray cast (--ray, --all) or overlap (--aabb, --circle, "
                  "--box, --polygon) against a world's newest tick; print the "
                  "tick and the shapes found",
       .usage = "atoll query WORLD --server=HOST:PORT --KIND=NUMBERS [flags]",
       .arguments = "WORLD (a world id)",
       .min_args = 1,
       .max_args = 1,
       .flags = {"server", "timeout", "ray", "all", "aabb", "circle", "box",
                 "polygon", "filter"},
       .required_flags = {"server"},
       .example = "atoll query demo --server=127.0.0.1:50051 "
                  "--ray=-10,1,20,0 --all"},
      {.name = "view",
       .summary = "the web viewer on a local world: a built-in scene or a JSON "
                  "scene stepped at its tick rate, or a recording (.atrec) "
                  "played back and opened in the replay inspector (scrub, "
                  "step, verify); no server needed",
       .usage = "atoll view SCENE_OR_RECORDING [flags]",
       .arguments = "SCENE_OR_RECORDING (a built-in scene name, a .json "
                    "SceneSpec file or an .atrec recording)",
       .min_args = 1,
       .max_args = 1,
       .flags = {"listen", "size", "seed", "tick_rate"},
       .example = "atoll view pyramid --size=10 --listen=127.0.0.1:8080"},
      {.name = "verify",
       .summary = "re-simulate a recording file against its hash chain; "
                  "several files are the pieces of a world that moved between "
                  "servers (atoll migrate), joined in the order given",
       .usage = "atoll verify RECORDING [MORE_RECORDINGS...]",
       .arguments = "RECORDING (an .atrec file; then the recordings of the "
                    "servers the world moved to, in order)",
       .min_args = 1,
       .max_args = 64,
       .example = "atoll verify data/worlds/demo.atrec"},
      {.name = "migrate",
       .summary = "move a live world to another server: it stops after its "
                  "current tick on --from and goes on at the next on --to "
                  "with the same hash chain; its players are redirected and "
                  "resume there",
       .usage = "atoll migrate WORLD --from=HOST:PORT --to=HOST:PORT [flags]",
       .arguments = "WORLD (a world id)",
       .min_args = 1,
       .max_args = 1,
       .flags = {"from", "to", "redirect", "timeout"},
       .required_flags = {"from", "to"},
       .example = "atoll migrate demo --from=10.0.0.5:50051 --to=10.0.0.6:50051"},
      {.name = "batch",
       .summary = "run a scene headless on the server with a progress bar "
                  "(sharded sweeps: `atoll batch run` and `atoll batch "
                  "merge`, below)",
       .usage = "atoll batch SCENE --server=HOST:PORT [flags]",
       .arguments = "SCENE (a .json SceneSpec file or a built-in scene name)",
       .min_args = 1,
       .max_args = 1,
       .flags = {"server", "timeout", "steps", "tick_rate", "size", "seed"},
       .required_flags = {"server"},
       .example = "atoll batch pyramid --server=127.0.0.1:50051 --steps=600 "
                  "--size=10"},
      // Subcommands: "NAME SUB" entries, found by FindCommand(name, arg).
      {.name = "batch run",
       .summary = "run one shard of a sweep (a BatchSweep JSON file) in "
                  "process, no server needed: run i belongs to shard i % "
                  "shards; one result record per run in --out (runs already "
                  "recorded are skipped, so a killed shard can be rerun); "
                  "with --server the server's BatchService steps the runs",
       .usage = "atoll batch run SPEC --out=DIR [--shard=N] [--shards=M] "
                "[flags]",
       .arguments = "SPEC (a .json BatchSweep file)",
       .min_args = 1,
       .max_args = 1,
       .flags = {"out", "shard", "shards", "threads", "server"},
       .required_flags = {"out"},
       .example = "atoll batch run examples/sweeps/falling_circles.json --shard=0 --shards=4 "
                  "--out=results"},
      {.name = "batch merge",
       .summary = "check that every run of a sweep is recorded exactly once "
                  "in DIR (naming missing, duplicate and foreign records); "
                  "write DIR/results.csv and the plot DIR/results.svg",
       .usage = "atoll batch merge DIR",
       .arguments = "DIR (the --out folder of `atoll batch run`)",
       .min_args = 1,
       .max_args = 1,
       .example = "atoll batch merge results"},
      {.name = "synctest",
       .summary = "roll back and re-simulate a built-in scene every tick; "
                  "exit 1 and print the first divergent tick on a mismatch",
       .usage = "atoll synctest SCENE [flags]",
       .arguments = "SCENE (a built-in scene name)",
       .min_args = 1,
       .max_args = 1,
       .flags = {"ticks", "rollback", "size", "seed"},
       .example = "atoll synctest pyramid --size=6 --ticks=120 --rollback=8"},
      {.name = "loadtest",
       .summary =
           "load a server (its own when no --server) with worlds and streaming "
           "clients; print one CSV line of lateness and bytes",
       .usage = "atoll loadtest [flags]",
       .flags = {"server", "tls_ca", "worlds", "bodies", "clients", "seconds",
                 "tick_hz", "scene", "client_niceness", "tick_priority", "settle_seconds",
                 "viewers"},
       .example =
           "atoll loadtest --worlds=2 --bodies=40 --clients=3 --seconds=1 "
           "--scene=pyramid"},
      {.name = "probe",
       .summary = "time the control calls (ListWorlds, GetWorld, CreateWorld of a "
                  "small world and its DestroyWorld) every --interval; print each "
                  "call's count, failures, p50, p99 and max in ms as CSV, and each call "
                  "slower than --slow on stderr",
       .usage = "atoll probe --server=HOST:PORT [flags]",
       .flags = {"server", "timeout", "tls_ca", "world", "interval", "seconds", "slow"},
       .required_flags = {"server"},
       .example = "atoll probe --server=127.0.0.1:50051 --seconds=20"},
  };
  return *commands;
}

const CommandSpec* FindCommand(absl::string_view name) {
  for (const CommandSpec& command : AllCommands()) {
    if (command.name == name) return &command;
  }
  return nullptr;
}

const CommandSpec* FindCommand(absl::string_view name,
                               absl::string_view first_arg) {
  if (!first_arg.empty()) {
    if (const CommandSpec* sub = FindCommand(absl::StrCat(name, " ", first_arg))) {
      return sub;
    }
  }
  return FindCommand(name);
}

std::string GeneralUsage() {
  size_t name_width = 0;
  for (const CommandSpec& command : AllCommands()) {
    name_width = std::max(name_width, command.name.size());
  }
  const size_t column = 2 + name_width + 2;
  std::string out =
      "usage: atoll COMMAND [ARGUMENTS] [--flag=VALUE ...]\n\ncommands:\n";
  for (const CommandSpec& command : AllCommands()) {
    absl::StrAppend(&out, "  ", command.name,
                    std::string(column - 2 - command.name.size(), ' '));
    AppendWrapped(command.summary, column, column, &out);
  }
  absl::StrAppend(&out, "\n");
  AppendWrapped(
      "`atoll help COMMAND` or `atoll COMMAND --help` lists the command's "
      "flags with their defaults and gives an example.",
      0, 0, &out);
  return out;
}

std::string CommandHelp(const CommandSpec& command) {
  std::string out = absl::StrCat("usage: ", command.usage, "\n\n");
  AppendWrapped(command.summary, 0, 0, &out);
  if (!command.flags.empty()) {
    // "--name=DEFAULT" and the help text of each flag.
    std::vector<std::pair<std::string, std::string>> rows;
    size_t left_width = 0;
    for (absl::string_view name : command.flags) {
      const absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
      // A name in the table that no ABSL_FLAG defines is a bug here, shown
      // rather than hidden (the help tests look for it).
      std::string left =
          flag != nullptr ? FlagWithDefault(*flag) : absl::StrCat("--", name);
      std::string help = flag != nullptr ? flag->Help() : "UNDEFINED FLAG";
      if (Contains(command.required_flags, name)) {
        absl::StrAppend(&help, " (required)");
      }
      left_width = std::max(left_width, left.size());
      rows.emplace_back(std::move(left), std::move(help));
    }
    // Help text starts in one column unless a default is too long for it.
    const size_t column = std::min<size_t>(2 + left_width + 2, 34);
    absl::StrAppend(&out, "\nflags:\n");
    for (const auto& [left, help] : rows) {
      absl::StrAppend(&out, "  ", left);
      if (2 + left.size() + 2 <= column) {
        absl::StrAppend(&out, std::string(column - 2 - left.size(), ' '));
      } else {
        absl::StrAppend(&out, "\n", std::string(column, ' '));
      }
      AppendWrapped(help, column, column, &out);
    }
  }
  absl::StrAppend(&out, "\nexample:\n  ", command.example, "\n");
  return out;
}

std::optional<int> CheckCommandLine(int argc, char** argv) {
  std::vector<absl::string_view> positional;
  std::vector<FlagArg> flags;
  std::string help;  // the help flag given, if any
  bool only_positional = false;
  for (int i = 1; i < argc; ++i) {
    absl::string_view arg = argv[i];
    // Abseil's rules: "-" and words are positional, and so is everything
    // after "--".
    if (only_positional || arg.size() < 2 || arg[0] != '-') {
      positional.push_back(arg);
      continue;
    }
    if (arg == "--") {
      only_positional = true;
      continue;
    }
    FlagArg f;
    f.spelled = std::string(arg.substr(0, arg.find('=')));
    arg.remove_prefix(arg[1] == '-' ? 2 : 1);
    const size_t eq = arg.find('=');
    f.name = std::string(arg.substr(0, eq));
    f.has_assignment = eq != absl::string_view::npos;
    if (f.has_assignment) f.value = std::string(arg.substr(eq + 1));
    if (Contains(kHelpFlags, f.name)) {
      help = f.name;
      continue;
    }
    f.flag = absl::FindCommandLineFlag(f.name);
    if (f.flag == nullptr && absl::StartsWith(f.name, "no")) {
      absl::CommandLineFlag* positive =
          absl::FindCommandLineFlag(f.name.substr(2));
      if (positive != nullptr && positive->IsOfType<bool>()) {
        f.flag = positive;
        f.negative = true;
        f.name = f.name.substr(2);
      }
    }
    if (f.flag != nullptr && !f.flag->IsOfType<bool>() && !f.has_assignment) {
      // "--name value", as Abseil reads it: the next word is the value.
      if (i + 1 < argc) {
        f.value = argv[++i];
      } else {
        f.missing_value = true;
      }
    }
    flags.push_back(std::move(f));
  }

  if (positional.empty()) {
    if (help.empty()) {
      std::fputs(GeneralUsage().c_str(), stderr);
      return 2;
    }
    std::fputs(GeneralUsage().c_str(), stdout);
    if (help == "helpfull") {
      for (const CommandSpec& command : AllCommands()) {
        std::printf("\n%s", CommandHelp(command).c_str());
      }
    }
    return 0;
  }
  if (positional[0] == "help") {
    if (positional.size() < 2) {
      std::fputs(GeneralUsage().c_str(), stdout);
      return 0;
    }
    const CommandSpec* command =
        FindCommand(positional[1], positional.size() > 2 ? positional[2] : "");
    if (command == nullptr) return UnknownCommand(positional[1]);
    std::fputs(CommandHelp(*command).c_str(), stdout);
    return 0;
  }
  const CommandSpec* command =
      FindCommand(positional[0], positional.size() > 1 ? positional[1] : "");
  if (command == nullptr) return UnknownCommand(positional[0]);
  // A subcommand's word is no positional argument of it.
  if (absl::StrContains(command->name, ' ')) positional.erase(positional.begin() + 1);
  if (!help.empty()) {
    std::fputs(CommandHelp(*command).c_str(), stdout);
    return 0;
  }

  for (const FlagArg& f : flags) {
    if (Contains(kGeneratorFlags, f.name)) continue;
    // A flag of another command is refused as well: it would be ignored,
    // and the user would believe it did something.
    if (f.flag == nullptr || !Contains(command->flags, f.name)) {
      return UsageError(*command, absl::StrCat("unknown flag ", f.spelled));
    }
    if (f.missing_value) {
      return UsageError(
          *command,
          absl::StrCat(f.spelled, " needs a value: ", f.spelled, "=VALUE"));
    }
    if (f.negative && f.has_assignment) {
      return UsageError(*command, absl::StrCat(f.spelled, " takes no value"));
    }
    // Try the value now, so a bad one is a usage error of this command
    // rather than Abseil's exit 1. ParseCommandLine sets the same value
    // again.
    const std::string value = f.flag->IsOfType<bool>() && !f.has_assignment
                                  ? (f.negative ? "false" : "true")
                                  : f.value;
    std::string error;
    if (!f.flag->ParseFrom(value, &error)) return UsageError(*command, error);
  }

  const int args = static_cast<int>(positional.size()) - 1;
  if (args < command->min_args) {
    return UsageError(*command, absl::StrCat("missing ", command->arguments));
  }
  if (args > command->max_args) {
    return UsageError(*command,
                      absl::StrCat("unexpected argument '",
                                   positional[1 + command->max_args], "'"));
  }
  return std::nullopt;
}

std::optional<int> CheckRequiredFlags(const CommandSpec& command) {
  for (absl::string_view name : command.required_flags) {
    const absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
    if (flag == nullptr || flag->CurrentValue().empty()) {
      return UsageError(command, absl::StrCat("missing --", name));
    }
  }
  return std::nullopt;
}

}  // namespace atl::cli
