#include "atoll/server/server.h"

#include <gtest/gtest.h>

#include "atoll/client/connection.h"
#include "atoll/version.h"

namespace atl::server {
namespace {

// Options with defaults except the address.
ServerOptions ListenOn(const std::string& listen) {
  ServerOptions options;
  options.listen = listen;
  return options;
}

TEST(ServerTest, ServesHealthAndInfoOnAFreePort) {
  auto server = Server::Create(ListenOn("127.0.0.1:0"));
  ASSERT_TRUE(server.ok()) << server.status();
  const std::string& address = (*server)->address();
  EXPECT_NE(address, "127.0.0.1:0");

  auto health = client::CheckHealth(address, "", absl::Seconds(5));
  ASSERT_TRUE(health.ok()) << health.status();
  EXPECT_EQ(*health, client::HealthStatus::kServing);

  auto info = client::GetServerInfo(address, absl::Seconds(5));
  ASSERT_TRUE(info.ok()) << info.status();
  EXPECT_EQ(info->engine_version(), EngineVersion());
  EXPECT_GE(info->uptime_ms(), 0);
}

TEST(ServerTest, ReportsNotServingAfterShutdownBegins) {
  auto server = Server::Create(ListenOn("127.0.0.1:0"));
  ASSERT_TRUE(server.ok()) << server.status();
  const std::string address = (*server)->address();
  (*server)->Shutdown(absl::ZeroDuration());
  (*server)->Wait();
  auto health = client::CheckHealth(address, "", absl::Milliseconds(500));
  EXPECT_FALSE(health.ok() && *health == client::HealthStatus::kServing);
}

TEST(ServerTest, RejectsMalformedListenAddress) {
  for (const char* bad : {"localhost", ":123", "127.0.0.1:", "127.0.0.1:99999",
                          "127.0.0.1:http"}) {
    auto server = Server::Create(ListenOn(bad));
    ASSERT_FALSE(server.ok()) << bad;
    EXPECT_EQ(server.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(server.status().message().find("listen"), std::string::npos);
  }
}

// Each priority option out of its range is refused naming it.
TEST(ServerTest, RejectsPrioritiesOutOfRange) {
  struct Case {
    int ServerOptions::*field;
    int bad;
    const char* message;
  };
  for (const Case& c : {Case{&ServerOptions::tick_priority, -1, "tick_priority: must be 0..99"},
                        Case{&ServerOptions::tick_priority, 100, "tick_priority: must be 0..99"},
                        Case{&ServerOptions::io_niceness, -1, "io_niceness"},
                        Case{&ServerOptions::io_niceness, 20, "io_niceness"}}) {
    ServerOptions options = ListenOn("127.0.0.1:0");
    options.*c.field = c.bad;
    auto server = Server::Create(options);
    ASSERT_FALSE(server.ok()) << c.message << " " << c.bad;
    EXPECT_EQ(server.status().code(), absl::StatusCode::kInvalidArgument) << c.bad;
    EXPECT_NE(server.status().message().find(c.message), std::string::npos) << server.status();
  }
}

TEST(ServerTest, RejectsAnAddressAlreadyInUse) {
  auto first = Server::Create(ListenOn("127.0.0.1:0"));
  ASSERT_TRUE(first.ok()) << first.status();
  auto second = Server::Create(ListenOn((*first)->address()));
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace atl::server
