// A WorldHost for scheduler and host tests: a 3-row pyramid at 60 Hz, made
// without a registry or a server.

#ifndef ATOLL_TESTS_SERVER_SMALL_WORLD_HOST_H_
#define ATOLL_TESTS_SERVER_SMALL_WORLD_HOST_H_

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "atoll/sim/simulation.h"
#include "world_host.h"

namespace atl::server {

inline std::shared_ptr<WorldHost> SmallWorldHost(const std::string& id) {
  v1::SceneSpec spec;
  spec.mutable_builtin()->set_name("pyramid");
  spec.mutable_builtin()->set_size(3);
  v1::WorldConfig config;
  config.set_tick_rate_hz(60);
  absl::StatusOr<v1::WorldConfig> normalized = sim::NormalizeWorldConfig(config, 100000);
  EXPECT_TRUE(normalized.ok()) << normalized.status();
  std::vector<v1::SlotToken> tokens;
  absl::StatusOr<std::shared_ptr<WorldHost>> host =
      WorldHost::Create(id, spec, *normalized, "", WorldHostOptions{}, &tokens);
  EXPECT_TRUE(host.ok()) << host.status();
  return *host;
}

}  // namespace atl::server

#endif  // ATOLL_TESTS_SERVER_SMALL_WORLD_HOST_H_
