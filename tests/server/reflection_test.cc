// Server reflection is checked on the wire with a generic stub: the
// reflection protocol's generated classes live inside libgrpc++_reflection
// without installed headers, and a second copy would clash with them.

#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include "atoll/client/connection.h"
#include "atoll/server/server.h"

namespace atl::server {
namespace {

// Options with defaults except the address.
ServerOptions ListenOn(const std::string& listen) {
  ServerOptions options;
  options.listen = listen;
  return options;
}

// ServerReflectionRequest{list_services: ""}: field 7, wire type 2, length 0.
constexpr char kListServicesRequest[] = {0x3a, 0x00};

bool Await(grpc::CompletionQueue* cq, void* expected_tag) {
  void* tag = nullptr;
  bool ok = false;
  return cq->Next(&tag, &ok) && tag == expected_tag && ok;
}

TEST(ReflectionTest, ListsAtollAndHealthServices) {
  auto server = Server::Create(ListenOn("127.0.0.1:0"));
  ASSERT_TRUE(server.ok()) << server.status();

  grpc::GenericStub stub(client::MakeChannel((*server)->address()));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  grpc::CompletionQueue cq;
  auto call = stub.PrepareCall(
      &context, "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
      &cq);
  int tags[5];
  call->StartCall(&tags[0]);
  ASSERT_TRUE(Await(&cq, &tags[0]));
  grpc::Slice slice(kListServicesRequest, sizeof(kListServicesRequest));
  call->Write(grpc::ByteBuffer(&slice, 1), &tags[1]);
  ASSERT_TRUE(Await(&cq, &tags[1]));
  grpc::ByteBuffer reply;
  call->Read(&reply, &tags[2]);
  ASSERT_TRUE(Await(&cq, &tags[2]));
  call->WritesDone(&tags[3]);
  ASSERT_TRUE(Await(&cq, &tags[3]));
  grpc::Status status;
  call->Finish(&status, &tags[4]);
  ASSERT_TRUE(Await(&cq, &tags[4]));

  std::vector<grpc::Slice> slices;
  ASSERT_TRUE(reply.Dump(&slices).ok());
  std::string bytes;
  for (const grpc::Slice& s : slices) {
    bytes.append(reinterpret_cast<const char*>(s.begin()), s.size());
  }
  EXPECT_NE(bytes.find("atl.v1.InfoService"), std::string::npos);
  EXPECT_NE(bytes.find("atl.v1.QueryService"), std::string::npos);
  EXPECT_NE(bytes.find("grpc.health.v1.Health"), std::string::npos);
}

}  // namespace
}  // namespace atl::server
