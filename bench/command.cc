#include "command.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"

namespace atl::bench {
namespace {

constexpr size_t kWidth = 80;  // columns of the help text

// Appends `text` wrapped at kWidth columns. The first line starts at
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

}  // namespace

std::map<std::string, Command>& Commands() {
  static std::map<std::string, Command> commands;
  return commands;
}

std::vector<std::string> FlagNames(std::span<const Flag> flags) {
  std::vector<std::string> names;
  for (const Flag& flag : flags) names.emplace_back(flag.name);
  return names;
}

std::string CommandHelpText(const Command& command) {
  std::string out;
  AppendWrapped(absl::StrCat("usage: ", command.help.usage), 0, 4, &out);
  out.push_back('\n');
  AppendWrapped(command.summary, 0, 0, &out);
  if (!command.help.flags.empty()) {
    std::vector<std::string> lefts;  // --name=DEFAULT
    size_t width = 0;
    for (const Flag& flag : command.help.flags) {
      const absl::string_view value =
          flag.default_value == nullptr ? "" : flag.default_value;
      lefts.push_back(
          flag.default_value == nullptr ? absl::StrCat("--", flag.name)
          : value.empty()               ? absl::StrCat("--", flag.name, "=\"\"")
                          : absl::StrCat("--", flag.name, "=", value));
      width = std::max(width, lefts.back().size());
    }
    // Help text starts in one column unless a default is too long for it.
    const size_t column = std::min<size_t>(2 + width + 2, 34);
    absl::StrAppend(&out, "\nflags:\n");
    for (size_t i = 0; i < lefts.size(); ++i) {
      absl::StrAppend(&out, "  ", lefts[i]);
      if (2 + lefts[i].size() + 2 <= column) {
        absl::StrAppend(&out, std::string(column - 2 - lefts[i].size(), ' '));
      } else {
        absl::StrAppend(&out, "\n", std::string(column, ' '));
      }
      AppendWrapped(command.help.flags[i].help, column, column, &out);
    }
  }
  absl::StrAppend(&out, "\nexample:\n  ", command.help.example, "\n");
  return out;
}

}  // namespace atl::bench
