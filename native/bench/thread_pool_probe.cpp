// What handing work to the pool costs (sb/thread_pool.h), which sets the thresholds under which the
// kernels stay on one thread (kParallelMinFmas, kParallelMinElements):
//
//   thread_pool_probe [--threads N] [--runs R]
//
// prints what one run() of N tiles of kTileNs of work each costs beyond kTileNs (the time the tiles
// would take on N threads at no cost), median nanoseconds, with the workers still spinning from the
// run before ("hot": a model's parallel loops come microseconds apart) and after a pause long enough
// for them to block ("cold": the first loop of an execute after an idle pool). A worker that joins
// late leaves its tile to the caller: then the run costs up to (N - 1) * kTileNs more.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "sb/thread_pool.h"

namespace {

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// A tile: kTileNs of spinning on the clock, then one store.
constexpr int64_t kTileNs = 5000;

void tile_work(const void* ctx, size_t tile) {
  const int64_t end = now_ns() + kTileNs;
  while (now_ns() < end) {
  }
  static_cast<volatile int64_t*>(const_cast<void*>(ctx))[tile * 16] = static_cast<int64_t>(tile);
}

int64_t median(std::vector<int64_t> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  size_t threads = 2;
  int runs = 2000;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--threads") == 0) threads = static_cast<size_t>(atoi(argv[i + 1]));
    if (strcmp(argv[i], "--runs") == 0) runs = atoi(argv[i + 1]);
  }
  if (threads < 1 || runs < 1) {
    fprintf(stderr, "error: --threads and --runs take positive numbers\n");
    return 2;
  }
  sb::ThreadPool pool(threads);
  std::vector<int64_t> slots(threads * 16);
  std::vector<int64_t> hot, cold;
  for (int r = 0; r < runs; ++r) {
    const int64_t start = now_ns();
    pool.run(threads, &tile_work, slots.data());
    hot.push_back(now_ns() - start - kTileNs);
  }
  for (int r = 0; r < std::min(runs, 200); ++r) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));  // past the workers' spin: they block
    const int64_t start = now_ns();
    pool.run(threads, &tile_work, slots.data());
    cold.push_back(now_ns() - start - kTileNs);
  }
  printf("threads %zu\ntile_ns %lld\nfork_join_ns_hot_median %lld\nfork_join_ns_cold_median %lld\n", threads,
         static_cast<long long>(kTileNs),
         static_cast<long long>(median(hot)), static_cast<long long>(median(cold)));
  return 0;
}
