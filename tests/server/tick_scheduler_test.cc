// The tick scheduler spreads worlds of one rate over the period.

#include "tick_scheduler.h"

#include <sched.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "small_world_host.h"

namespace atl::server {
namespace {

const absl::Duration kPeriod = absl::Microseconds(16000);

TEST(TickSchedulerTest, SpreadPhaseTakesTheMiddleOfTheWidestGap) {
  EXPECT_EQ(SpreadPhase({}, kPeriod), absl::ZeroDuration());
  EXPECT_EQ(SpreadPhase({absl::ZeroDuration()}, kPeriod), absl::Microseconds(8000));
  // Unsorted input; the widest gap is 4 ms..14 ms.
  EXPECT_EQ(SpreadPhase({absl::Microseconds(14000), absl::Microseconds(2000),
                         absl::Microseconds(4000)},
                        kPeriod),
            absl::Microseconds(9000));
  // The gap that wraps round the end of the cycle: 8 ms..4 ms (+16).
  EXPECT_EQ(SpreadPhase({absl::Microseconds(4000), absl::Microseconds(8000)}, kPeriod),
            absl::Microseconds(14000));
  // ... and past it: 10 ms..6 ms (+16) has its middle at 16 = 0.
  EXPECT_EQ(SpreadPhase({absl::Microseconds(6000), absl::Microseconds(10000)}, kPeriod),
            absl::ZeroDuration());
  // Equal gaps: the first in sorted order.
  EXPECT_EQ(SpreadPhase({absl::ZeroDuration(), absl::Microseconds(8000)}, kPeriod),
            absl::Microseconds(4000));
}

TEST(TickSchedulerTest, WorldsAddedTogetherEndUpEvenlySpread) {
  // 32 worlds added at the same instant, each placed by SpreadPhase.
  std::vector<absl::Duration> phases;
  for (int i = 0; i < 32; ++i) phases.push_back(SpreadPhase(phases, kPeriod));
  std::sort(phases.begin(), phases.end());
  absl::Duration narrowest = phases.front() + kPeriod - phases.back();
  for (size_t i = 1; i < phases.size(); ++i) {
    narrowest = std::min(narrowest, phases[i] - phases[i - 1]);
  }
  // An even spread leaves 0.5 ms between ticks; halving gaps in turn never
  // leaves less than half of that.
  EXPECT_GE(narrowest, kPeriod / 64);
  EXPECT_EQ(std::unique(phases.begin(), phases.end()), phases.end());
}

// With a realtime priority every tick thread runs under SCHED_FIFO, or, where
// the process may not (no root, CAP_SYS_NICE or RLIMIT_RTPRIO), the
// scheduler says so naming the option.
TEST(TickSchedulerTest, RealtimePriorityIsTakenOrRefusedByName) {
  TickScheduler scheduler(2, 1);
  if (!scheduler.status().ok()) {
    EXPECT_EQ(scheduler.status().code(), absl::StatusCode::kFailedPrecondition);
    EXPECT_THAT(scheduler.status().message(), ::testing::HasSubstr("tick_priority"));
    GTEST_SKIP() << "this process may not run realtime threads: " << scheduler.status();
  }
  int fifo_threads = 0;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::string name;
    std::getline(std::ifstream(task.path() / "comm"), name);
    if (name.rfind("atoll-tick-", 0) != 0) continue;
    const pid_t tid = std::stoi(task.path().filename().string());
    EXPECT_EQ(sched_getscheduler(tid), SCHED_FIFO) << name;
    sched_param param{};
    ASSERT_EQ(sched_getparam(tid, &param), 0);
    EXPECT_EQ(param.sched_priority, 1) << name;
    ++fifo_threads;
  }
  EXPECT_EQ(fifo_threads, 2);
}

// Spins for `d`: the busy work the hook adds to a tick thread's loop.
void BurnCpu(absl::Duration d) {
  const absl::Time end = absl::Now() + d;
  while (absl::Now() < end) {
  }
}

// A world a tick thread steps on time leaves it waiting between ticks: no
// pause. One it can never catch up with (the hook burns 20 ms of each
// 16.7 ms period) keeps it busy: under SCHED_FIFO it pauses, about once per
// tick; under normal scheduling it never does (the fair scheduler shares).
TEST(TickSchedulerTest, ABusyRealtimeThreadPausesAndAnIdleOneDoesNot) {
  TickScheduler scheduler(1, 1);
  if (!scheduler.status().ok()) {
    GTEST_SKIP() << "this process may not run realtime threads: " << scheduler.status();
  }
  std::shared_ptr<WorldHost> world = SmallWorldHost("on-time");
  scheduler.Add(world, /*at_once=*/true);
  absl::SleepFor(absl::Milliseconds(300));
  EXPECT_GT(world->tick(), 10u);
  EXPECT_EQ(scheduler.pauses(), 0u);

  scheduler.SetIterationHookForTesting([] { BurnCpu(absl::Milliseconds(20)); });
  absl::SleepFor(absl::Milliseconds(300));
  scheduler.SetIterationHookForTesting(nullptr);
  EXPECT_GE(scheduler.pauses(), 3u);
}

TEST(TickSchedulerTest, AThreadUnderNormalSchedulingNeverPauses) {
  TickScheduler scheduler(1);
  std::shared_ptr<WorldHost> world = SmallWorldHost("behind");
  scheduler.Add(world, /*at_once=*/true);
  scheduler.SetIterationHookForTesting([] { BurnCpu(absl::Milliseconds(20)); });
  absl::SleepFor(absl::Milliseconds(300));
  scheduler.SetIterationHookForTesting(nullptr);
  EXPECT_GT(world->tick(), 5u);
  EXPECT_EQ(scheduler.pauses(), 0u);
}

// An I/O thread that holds a world's lock (here a query that does not
// return) stalls the tick thread that steps that world, and no other: the
// scheduler never asks for a world's lock while it holds its own, so the
// second thread keeps ticking the second world.
TEST(TickSchedulerTest, AWorldHeldByAnIoThreadStallsOnlyTheThreadSteppingIt) {
  TickScheduler scheduler(2);
  std::shared_ptr<WorldHost> held = SmallWorldHost("held");
  std::shared_ptr<WorldHost> other = SmallWorldHost("other");
  scheduler.Add(held, /*at_once=*/true);
  scheduler.Add(other, /*at_once=*/true);
  absl::Notification holding, release;
  std::thread io([&] {
    const absl::StatusOr<uint64_t> queried = held->Query([&](const World&) {
      holding.Notify();
      release.WaitForNotification();
    });
    EXPECT_TRUE(queried.ok()) << queried.status();
  });
  holding.WaitForNotification();
  const uint64_t before = other->tick();
  absl::SleepFor(absl::Milliseconds(300));
  const uint64_t during = other->tick() - before;
  release.Notify();
  io.join();
  EXPECT_GE(during, 10u) << "18 ticks fell due";
}

TEST(TickSchedulerTest, NormalPriorityByDefault) {
  TickScheduler scheduler(1);
  ASSERT_TRUE(scheduler.status().ok());
  int threads = 0;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task")) {
    std::string name;
    std::getline(std::ifstream(task.path() / "comm"), name);
    if (name.rfind("atoll-tick-", 0) != 0) continue;
    EXPECT_EQ(sched_getscheduler(std::stoi(task.path().filename().string())), SCHED_OTHER);
    ++threads;
  }
  EXPECT_EQ(threads, 1);
}

}  // namespace
}  // namespace atl::server
