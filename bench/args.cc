#include "args.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace atl::bench {

absl::StatusOr<Args> Args::Parse(const std::vector<std::string>& args,
                                 const std::vector<std::string>& known) {
  Args parsed;
  for (const std::string& arg : args) {
    if (arg.rfind("--", 0) != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("unexpected argument '", arg, "' (flags are --key=value)"));
    }
    const size_t eq = arg.find('=');
    std::string key = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    std::string value = eq == std::string::npos ? "true" : arg.substr(eq + 1);
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      return absl::InvalidArgumentError(absl::StrCat("unknown flag --", key));
    }
    parsed.values_[key] = value;
  }
  return parsed;
}

std::string Args::Get(const std::string& key, const std::string& fallback) const {
  const auto it = values_.find(key);
  return it == values_.end() ? fallback : it->second;
}

std::vector<std::string> Args::GetList(
    const std::string& key, const std::vector<std::string>& fallback) const {
  const auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  return absl::StrSplit(it->second, ',', absl::SkipEmpty());
}

absl::StatusOr<int64_t> Args::GetInt(const std::string& key, int64_t fallback) const {
  const auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  int64_t value = 0;
  if (!absl::SimpleAtoi(it->second, &value)) {
    return absl::InvalidArgumentError(
        absl::StrCat("--", key, " wants an integer, got '", it->second, "'"));
  }
  return value;
}

absl::StatusOr<std::vector<int64_t>> Args::GetIntList(
    const std::string& key, const std::vector<int64_t>& fallback) const {
  const auto it = values_.find(key);
  if (it == values_.end()) return fallback;
  std::vector<int64_t> out;
  for (const std::string& item : GetList(key, {})) {
    int64_t value = 0;
    if (!absl::SimpleAtoi(item, &value)) {
      return absl::InvalidArgumentError(
          absl::StrCat("--", key, " wants integers, got '", item, "'"));
    }
    out.push_back(value);
  }
  return out;
}

}  // namespace atl::bench
