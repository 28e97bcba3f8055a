// The CPU backend's thread pool: every index is visited exactly once, and calls made while
// the pool is busy (nested inside a job, or from a second thread) run inline instead of
// deadlocking or corrupting the job in flight.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "backends/cpu/thread_pool.h"

namespace rung::cpu {
namespace {

TEST(CpuThreadPool, CoversEveryIndexOnce) {
  for (unsigned threads : {1u, 2u, 5u}) {
    ThreadPool pool(threads);
    for (std::uint64_t n : {0ull, 1ull, 7ull, 1000ull}) {
      std::vector<std::atomic<int>> hits(n);
      pool.parallel_for(n, 1, [&](std::uint64_t b, std::uint64_t e) {
        for (std::uint64_t i = b; i < e; ++i) ++hits[i];
      });
      for (auto& h : hits) EXPECT_EQ(h.load(), 1);
    }
  }
}

TEST(CpuThreadPool, NestedAndConcurrentCallsRunInline) {
  ThreadPool pool(2);
  std::atomic<std::uint64_t> total{0};
  pool.parallel_for(8, 1, [&](std::uint64_t b, std::uint64_t e) {
    for (std::uint64_t i = b; i < e; ++i)
      pool.parallel_for(10, 1, [&](std::uint64_t b2, std::uint64_t e2) { total += e2 - b2; });
  });
  EXPECT_EQ(total.load(), 80u);
  std::atomic<std::uint64_t> sum{0};
  auto work = [&] {
    for (int r = 0; r < 200; ++r)
      pool.parallel_for(100, 1, [&](std::uint64_t b, std::uint64_t e) { sum += e - b; });
  };
  std::thread a(work), b(work);
  a.join();
  b.join();
  EXPECT_EQ(sum.load(), 2u * 200u * 100u);
}

}  // namespace
}  // namespace rung::cpu
