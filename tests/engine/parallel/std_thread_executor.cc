#include "engine/parallel/std_thread_executor.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace atl::testing {
namespace {

class StdThreadExecutor final : public Executor {
 public:
  explicit StdThreadExecutor(int32_t threads) : threads_(threads) {
    for (int32_t i = 1; i < threads; ++i)
      workers_.emplace_back([this] { WorkerLoop(); });
  }

  ~StdThreadExecutor() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& t : workers_) t.join();
  }

  void ParallelFor(int32_t count, int32_t grain,
                   absl::FunctionRef<void(int32_t, int32_t)> task) override {
    if (count <= 0) return;
    grain = std::max(grain, 1);
    if (workers_.empty() || count <= grain) {
      task(0, count);
      return;
    }
    Job job{task, count, grain, (count + grain - 1) / grain};
    {
      std::lock_guard<std::mutex> lock(mu_);
      job_ = &job;
      ++generation_;
    }
    wake_.notify_all();
    RunChunks(&job);
    // Wait until every chunk is done and no worker still holds the job.
    std::unique_lock<std::mutex> lock(mu_);
    done_.wait(lock,
               [&] { return job.finished == job.chunks && job.holders == 0; });
    job_ = nullptr;
  }

  int32_t concurrency() const override { return threads_; }

 private:
  struct Job {
    absl::FunctionRef<void(int32_t, int32_t)> task;
    int32_t count;
    int32_t grain;
    int32_t chunks;
    std::atomic<int32_t> next{0};
    int32_t finished = 0;  // guarded by mu_
    int32_t holders = 0;   // workers inside RunChunks; guarded by mu_
  };

  void RunChunks(Job* job) {
    int32_t ran = 0;
    for (;;) {
      const int32_t chunk = job->next.fetch_add(1);
      if (chunk >= job->chunks) break;
      const int32_t begin = chunk * job->grain;
      job->task(begin, std::min(begin + job->grain, job->count));
      ++ran;
    }
    std::lock_guard<std::mutex> lock(mu_);
    job->finished += ran;
  }

  void WorkerLoop() {
    uint64_t seen = 0;
    for (;;) {
      Job* job = nullptr;
      {
        std::unique_lock<std::mutex> lock(mu_);
        wake_.wait(lock, [&] {
          return stop_ || (job_ != nullptr && generation_ != seen);
        });
        if (stop_) return;
        seen = generation_;
        job = job_;
        ++job->holders;
      }
      RunChunks(job);
      {
        std::lock_guard<std::mutex> lock(mu_);
        --job->holders;
      }
      done_.notify_all();
    }
  }

  const int32_t threads_;
  std::vector<std::thread> workers_;
  std::mutex mu_;
  std::condition_variable wake_;
  std::condition_variable done_;
  Job* job_ = nullptr;  // guarded by mu_
  uint64_t generation_ = 0;
  bool stop_ = false;
};

}  // namespace

std::unique_ptr<Executor> MakeStdThreadExecutor(int32_t threads) {
  return std::make_unique<StdThreadExecutor>(std::max(threads, 1));
}

}  // namespace atl::testing
