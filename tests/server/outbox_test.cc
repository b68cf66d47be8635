// The session outbox (server/src/outbox.h): a producer's push never runs a
// gRPC call on the producer's thread when the outbox has a dispatcher; the
// calls run in order, once each, and a stream finishes only after its
// write in flight is done. The real send thread runs what it is given.

#include "outbox.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "send_thread.h"

namespace atl::server {
namespace {

using Message = v1::ServerMessage;

// Records the calls the outbox makes; OnWriteDone is driven by the test.
class FakeSink final : public MessageSink<Message> {
 public:
  void StartMessageWrite(const Message* message) override {
    writes.push_back(message->error().message());
  }
  void FinishCall(const grpc::Status& status) override { finished.push_back(status.error_code()); }
  std::vector<std::string> writes;
  std::vector<grpc::StatusCode> finished;
};

// Holds dispatched calls until the test runs them.
class HeldDispatcher final : public SendDispatcher {
 public:
  void Dispatch(std::function<void()> call) override { held.push_back(std::move(call)); }
  void RunAll() {
    std::vector<std::function<void()>> calls;
    calls.swap(held);
    for (auto& c : calls) c();
  }
  std::vector<std::function<void()>> held;
};

Message Named(const std::string& name) {
  Message m;
  m.mutable_error()->set_message(name);
  return m;
}

TEST(OutboxTest, ProducerPushesGoThroughTheDispatcher) {
  FakeSink sink;
  HeldDispatcher dispatcher;
  auto outbox = std::make_shared<Outbox>(&sink, 8, &dispatcher);
  ASSERT_TRUE(outbox->Push(Named("a")));
  ASSERT_TRUE(outbox->Push(Named("b")));
  EXPECT_TRUE(sink.writes.empty()) << "the producer's thread started a write";
  ASSERT_EQ(dispatcher.held.size(), 1u) << "one write in flight at a time";
  dispatcher.RunAll();
  EXPECT_EQ(sink.writes, (std::vector<std::string>{"a"}));
  // The next write starts from OnWriteDone, inline (gRPC's thread).
  outbox->OnWriteDone(true);
  EXPECT_EQ(sink.writes, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(dispatcher.held.empty());
  outbox->OnWriteDone(true);
  // Idle again: the next push is dispatched again.
  ASSERT_TRUE(outbox->Push(Named("c")));
  EXPECT_EQ(sink.writes.size(), 2u);
  dispatcher.RunAll();
  EXPECT_EQ(sink.writes.back(), "c");
}

TEST(OutboxTest, CloseWaitsForTheDispatchedWrite) {
  FakeSink sink;
  HeldDispatcher dispatcher;
  auto outbox = std::make_shared<Outbox>(&sink, 8, &dispatcher);
  ASSERT_TRUE(outbox->Push(Named("a")));
  outbox->Close(grpc::Status(grpc::StatusCode::UNAVAILABLE, "bye"));
  EXPECT_TRUE(sink.finished.empty()) << "finished with a write not yet started";
  EXPECT_FALSE(outbox->Push(Named("late"))) << "closed outboxes refuse pushes";
  dispatcher.RunAll();
  EXPECT_EQ(sink.writes, (std::vector<std::string>{"a"}));
  outbox->OnWriteDone(true);
  EXPECT_EQ(sink.finished, (std::vector<grpc::StatusCode>{grpc::StatusCode::UNAVAILABLE}));
}

TEST(OutboxTest, DispatchedCallKeepsTheOutboxAlive) {
  FakeSink sink;
  HeldDispatcher dispatcher;
  {
    auto outbox = std::make_shared<Outbox>(&sink, 8, &dispatcher);
    ASSERT_TRUE(outbox->Push(Named("a")));
  }  // the last owner besides the dispatched call is gone
  dispatcher.RunAll();
  EXPECT_EQ(sink.writes, (std::vector<std::string>{"a"}));
}

TEST(OutboxTest, WithoutADispatcherThePushWritesInline) {
  FakeSink sink;
  Outbox outbox(&sink, 8);
  ASSERT_TRUE(outbox.Push(Named("a")));
  EXPECT_EQ(sink.writes, (std::vector<std::string>{"a"}));
}

TEST(SendThreadTest, RunsEveryCallInOrderAndDrainsOnDestruction) {
  std::vector<int> ran;
  {
    SendThread thread;
    for (int i = 0; i < 1000; ++i) {
      thread.Dispatch([&ran, i] { ran.push_back(i); });
    }
  }  // the destructor runs whatever is still queued
  ASSERT_EQ(ran.size(), 1000u);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(ran[static_cast<size_t>(i)], i);
}

}  // namespace
}  // namespace atl::server
