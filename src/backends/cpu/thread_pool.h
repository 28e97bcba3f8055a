// A small fixed-size thread pool with one primitive: parallel_for over [0, n) cut into
// contiguous ranges. It never decides *what* is computed, only *who* computes it: every
// kernel splits work over independent outputs, and each output's operation sequence is
// the same whatever the thread count, so results are bit-identical at 1, 2 or 64 threads.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace rung::cpu {

class ThreadPool {
 public:
  explicit ThreadPool(unsigned threads);  // 0 = hardware concurrency
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  unsigned threads() const { return threads_; }

  // Calls fn(begin, end) on disjoint ranges covering [0, n); ranges hold at least `grain`
  // items (except the last). Runs inline when one range suffices, and when the pool is
  // already running a job (a concurrent or nested call), so it never deadlocks.
  void parallel_for(std::uint64_t n, std::uint64_t grain, const std::function<void(std::uint64_t, std::uint64_t)>& fn);

 private:
  void worker(unsigned index);

  unsigned threads_;
  std::vector<std::thread> workers_;
  std::mutex job_mu_;  // held by the caller for the whole of a parallel job
  std::mutex mu_;
  std::condition_variable start_cv_, done_cv_;
  const std::function<void(std::uint64_t, std::uint64_t)>* job_ = nullptr;
  std::uint64_t job_n_ = 0, job_parts_ = 0;
  std::uint64_t generation_ = 0;
  unsigned pending_ = 0;
  bool stop_ = false;
};

}  // namespace rung::cpu
