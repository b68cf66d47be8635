// TLS by flags: a self-signed certificate made here with openssl, the
// server started with --tls_cert/--tls_key, clients trusting it with
// --tls_ca.

#include <stdlib.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>

#include "atoll/client/connection.h"
#include "atoll/server/server.h"
#include "atoll/v1/session.grpc.pb.h"
#include "atoll/v1/world.grpc.pb.h"
#include "support/server_process.h"

namespace atl::testing {
namespace {

constexpr char kOpenssl[] = "/usr/bin/openssl";

class TlsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (access(kOpenssl, X_OK) != 0) GTEST_SKIP() << "no " << kOpenssl << " (scripts/setup)";
    std::string pattern = ::testing::TempDir() + "atoll_tls_XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    cert_ = dir_ + "/cert.pem";
    key_ = dir_ + "/key.pem";
    std::string output;
    ASSERT_EQ(RunCommand({kOpenssl, "req", "-x509", "-newkey", "ec", "-pkeyopt",
                          "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key_, "-out",
                          cert_, "-days", "1", "-subj", "/CN=localhost", "-addext",
                          "subjectAltName=DNS:localhost,IP:127.0.0.1"},
                         &output),
              0)
        << output;
  }
  void TearDown() override {
    if (!dir_.empty()) std::filesystem::remove_all(dir_);
  }

  server::ServerOptions TlsOptions() const {
    server::ServerOptions options;
    options.listen = "127.0.0.1:0";
    options.tls_cert_path = cert_;
    options.tls_key_path = key_;
    return options;
  }

  std::string dir_, cert_, key_;
};

TEST_F(TlsTest, TrustingClientStreamsAndPlaintextClientIsRefused) {
  auto server = server::Server::Create(TlsOptions());
  ASSERT_TRUE(server.ok()) << server.status();
  const std::string address = (*server)->address();
  client::ChannelOptions tls;
  tls.tls_ca_path = cert_;

  auto health = client::CheckHealth(address, tls, "", absl::Seconds(5));
  ASSERT_TRUE(health.ok()) << health.status();
  EXPECT_EQ(*health, client::HealthStatus::kServing);
  EXPECT_FALSE(client::CheckHealth(address, "", absl::Milliseconds(500)).ok());

  // A whole session over TLS.
  auto channel = client::MakeChannel(address, tls);
  ASSERT_TRUE(channel.ok()) << channel.status();
  auto worlds = v1::WorldService::NewStub(*channel);
  v1::CreateWorldRequest create;
  create.set_world_id("secure");
  create.mutable_scene()->mutable_builtin()->set_name("pyramid");
  create.mutable_scene()->mutable_builtin()->set_size(5);
  create.mutable_config()->set_tick_rate_hz(240);
  v1::CreateWorldResponse created;
  {
    grpc::ClientContext context;
    ASSERT_TRUE(worlds->CreateWorld(&context, create, &created).ok());
  }
  auto sessions = v1::SessionService::NewStub(*channel);
  grpc::ClientContext context;
  v1::WatchRequest watch;
  watch.set_world_id("secure");
  auto reader = sessions->Watch(&context, watch);
  int frames = 0;
  v1::ServerMessage m;
  while (frames < 10 && reader->Read(&m)) frames += m.has_frame() ? 1 : 0;
  EXPECT_EQ(frames, 10);
  context.TryCancel();
  reader->Finish();
}

TEST_F(TlsTest, UntrustedCertificateIsRefused) {
  auto server = server::Server::Create(TlsOptions());
  ASSERT_TRUE(server.ok()) << server.status();
  // The key is not a CA anyone trusts: the system roots do not verify it.
  client::ChannelOptions other;
  other.tls_ca_path = "/etc/ssl/certs/ca-certificates.crt";
  if (access(other.tls_ca_path.c_str(), R_OK) != 0) GTEST_SKIP() << "no system CA bundle";
  EXPECT_FALSE(
      client::CheckHealth((*server)->address(), other, "", absl::Milliseconds(1000)).ok());
}

TEST_F(TlsTest, BadTlsOptionsAreRefusedNamingTheFlag) {
  server::ServerOptions options = TlsOptions();
  options.tls_key_path.clear();
  auto server = server::Server::Create(options);
  ASSERT_FALSE(server.ok());
  EXPECT_EQ(server.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(server.status().message().find("tls_key"), std::string::npos);

  options = TlsOptions();
  options.tls_cert_path = dir_ + "/missing.pem";
  server = server::Server::Create(options);
  ASSERT_FALSE(server.ok());
  EXPECT_NE(server.status().message().find("tls_cert"), std::string::npos);

  client::ChannelOptions bad;
  bad.tls_ca_path = dir_ + "/missing.pem";
  auto channel = client::MakeChannel("127.0.0.1:1", bad);
  ASSERT_FALSE(channel.ok());
  EXPECT_NE(channel.status().message().find("tls_ca"), std::string::npos);
}

TEST_F(TlsTest, ServerAndCliFlagsSpeakTls) {
  auto server = ServerProcess::Start({"--tls_cert=" + cert_, "--tls_key=" + key_});
  ASSERT_TRUE(server.ok()) << server.status();
  std::string output;
  EXPECT_EQ(RunCommand({BinaryPath("atoll"), "health", "--server=" + (*server)->address(),
                        "--tls_ca=" + cert_},
                       &output),
            0)
      << output;
  EXPECT_NE(output.find("SERVING"), std::string::npos) << output;
  EXPECT_EQ(RunCommand({BinaryPath("atoll"), "health", "--server=" + (*server)->address(),
                        "--timeout=500ms"},
                       &output),
            1)
      << output;
}

}  // namespace
}  // namespace atl::testing
