// A PiMutex lends its waiter's realtime priority to its holder: a tick
// thread (SCHED_FIFO) waiting for an outbox's lock makes the normally
// scheduled gRPC thread that holds it run at the tick thread's priority.

#include "pi_mutex.h"

#include <gtest/gtest.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace atl::server {
namespace {

// The kernel's effective priority of thread `tid` (field 18 of its stat):
// 20 for a nice-0 normal thread, -1 - P for one running at realtime
// priority P, boosted or not.
int EffectivePriority(pid_t tid) {
  std::ifstream in("/proc/self/task/" + std::to_string(tid) + "/stat");
  std::string line;
  std::getline(in, line);
  // Fields after the command name, which ends at the last ')'.
  std::istringstream rest(line.substr(line.rfind(')') + 2));
  std::string field;
  for (int i = 3; i <= 18; ++i) rest >> field;
  return std::stoi(field);
}

TEST(PiMutexTest, ARealtimeWaiterBoostsTheHolder) {
  PiMutex mu;
  std::atomic<pid_t> holder_tid{0};
  absl::Notification held, release;
  std::thread holder([&] {
    holder_tid = static_cast<pid_t>(syscall(SYS_gettid));
    PiMutexLock lock(&mu);
    held.Notify();
    release.WaitForNotification();
  });
  held.WaitForNotification();
  const int normal = EffectivePriority(holder_tid);

  std::atomic<int> policy_error{-1};
  std::atomic<bool> got_it{false};
  std::thread waiter([&] {
    sched_param param{};
    param.sched_priority = 1;
    policy_error = pthread_setschedparam(pthread_self(), SCHED_FIFO, &param);
    if (policy_error != 0) return;
    PiMutexLock lock(&mu);
    got_it = true;
  });
  while (policy_error == -1) absl::SleepFor(absl::Milliseconds(1));
  if (policy_error != 0) {
    release.Notify();
    holder.join();
    waiter.join();
    GTEST_SKIP() << "this process may not run realtime threads";
  }
  // Boosted as soon as the waiter blocks.
  int boosted = normal;
  for (int i = 0; i < 2000 && boosted == normal; ++i) {
    absl::SleepFor(absl::Milliseconds(1));
    boosted = EffectivePriority(holder_tid);
  }
  EXPECT_EQ(boosted, -2) << "holder at " << boosted << ", normally " << normal;
  EXPECT_FALSE(got_it);
  release.Notify();
  holder.join();
  waiter.join();
  EXPECT_TRUE(got_it);
}

TEST(PiCondVarTest, WaitReleasesTheMutexUntilSignalled) {
  PiMutex mu;
  PiCondVar cv;
  bool ready = false;
  std::thread signaller([&] {
    PiMutexLock lock(&mu);
    ready = true;
    cv.Signal();
  });
  {
    PiMutexLock lock(&mu);
    while (!ready) cv.Wait(&mu);
  }
  signaller.join();
  EXPECT_TRUE(ready);
}

}  // namespace
}  // namespace atl::server
