#include "backends/cpu/thread_pool.h"

#include <algorithm>

namespace rung::cpu {

namespace {
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
// A wasm build without -pthread cannot start a thread (std::thread would throw): one thread,
// whatever was asked. The split never changes a result (parallel_for), so neither do bits.
unsigned pool_threads(unsigned) { return 1; }
#else
unsigned pool_threads(unsigned threads) { return threads ? threads : std::max(1u, std::thread::hardware_concurrency()); }
#endif
}  // namespace

ThreadPool::ThreadPool(unsigned threads) : threads_(pool_threads(threads)) {
  for (unsigned i = 1; i < threads_; ++i) workers_.emplace_back([this, i] { worker(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  start_cv_.notify_all();
  for (auto& t : workers_) t.join();
}

namespace {
// Part p of n items cut into `parts` near-equal contiguous ranges.
std::uint64_t part_begin(std::uint64_t n, std::uint64_t parts, std::uint64_t p) { return n / parts * p + std::min(p, n % parts); }
}  // namespace

void ThreadPool::parallel_for(std::uint64_t n, std::uint64_t grain, const std::function<void(std::uint64_t, std::uint64_t)>& fn) {
  if (n == 0) return;
  std::uint64_t parts = std::min<std::uint64_t>(threads_, (n + std::max<std::uint64_t>(grain, 1) - 1) / std::max<std::uint64_t>(grain, 1));
  // One job at a time: a call made while the pool is busy (from another thread sharing the
  // backend, or nested inside a job) runs inline. The split never changes a result, so this
  // only costs parallelism, never bits.
  std::unique_lock busy(job_mu_, std::try_to_lock);
  if (parts <= 1 || !busy.owns_lock()) {
    fn(0, n);
    return;
  }
  {
    std::lock_guard lock(mu_);
    job_ = &fn;
    job_n_ = n;
    job_parts_ = parts;
    pending_ = static_cast<unsigned>(parts - 1);
    ++generation_;
  }
  start_cv_.notify_all();
  fn(0, part_begin(n, parts, 1));
  std::unique_lock lock(mu_);
  done_cv_.wait(lock, [&] { return pending_ == 0; });
  job_ = nullptr;
}

void ThreadPool::worker(unsigned index) {
  std::uint64_t seen = 0;
  for (;;) {
    const std::function<void(std::uint64_t, std::uint64_t)>* job;
    std::uint64_t n, parts;
    {
      std::unique_lock lock(mu_);
      start_cv_.wait(lock, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      job = job_;
      n = job_n_;
      parts = job_parts_;
    }
    if (index < parts) {
      (*job)(part_begin(n, parts, index), part_begin(n, parts, index + 1));
      std::lock_guard lock(mu_);
      if (--pending_ == 0) done_cv_.notify_one();
    }
  }
}

}  // namespace rung::cpu
