// atoll-bench — minimal `--key=value` flag parsing shared by subcommands.

#ifndef ATOLL_BENCH_ARGS_H_
#define ATOLL_BENCH_ARGS_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace atl::bench {

/// Parsed flags of one subcommand. `--flag` alone means "true".
class Args {
 public:
  /// Parses `args`; every flag must be in `known` or an error names it.
  static absl::StatusOr<Args> Parse(const std::vector<std::string>& args,
                                    const std::vector<std::string>& known);

  bool Has(const std::string& key) const { return values_.count(key) > 0; }
  std::string Get(const std::string& key, const std::string& fallback) const;
  /// A comma-separated list, e.g. --objects=1000,10000.
  std::vector<std::string> GetList(const std::string& key,
                                   const std::vector<std::string>& fallback) const;
  absl::StatusOr<int64_t> GetInt(const std::string& key, int64_t fallback) const;
  absl::StatusOr<std::vector<int64_t>> GetIntList(
      const std::string& key, const std::vector<int64_t>& fallback) const;

 private:
  std::map<std::string, std::string> values_;
};

}  // namespace atl::bench

#endif  // ATOLL_BENCH_ARGS_H_
