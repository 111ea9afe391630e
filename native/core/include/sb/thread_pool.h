// A fixed pool of worker threads that kernels split their loops over, and the
// parallelize_* helpers they call (in the spirit of pthreadpool).
//
// The caller owns the pool: it creates one (its threads start there, once),
// hands it to Method through RuntimeLimits::threads, and kernels reach it as
// KernelContext::threads(). execute() therefore never creates a thread, and a
// parallel loop allocates nothing: the job lives in the pool, the tile
// function is passed as a pointer and the caller's closure by address.
//
// Determinism: a kernel splits its work into tiles whose boundaries depend
// only on the shapes, never on the number of threads, and each tile writes
// its own outputs. Which thread runs a tile changes nothing, so the outputs
// are bit-identical at any thread count (tests/test_threads.py).
//
// Built with SB_THREADS=0 (the CMake option SB_THREADS=OFF; the bare-metal
// toolchains), the pool is only declared: the helpers below run every tile
// on the calling thread and no thread code is compiled or linked.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sb {

class ThreadPool {
 public:
  using TaskFn = void (*)(const void* ctx, size_t tile);

#if SB_THREADS
  // `threads` is the total, the thread that calls run() included: threads - 1
  // workers start here. 1 (or 0) makes a pool that runs everything inline.
  explicit ThreadPool(size_t threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  size_t threads() const { return workers_ + 1; }

  // task(ctx, i) for every i < tiles, on the workers and the calling thread;
  // returns once every tile has finished. A run() made while the pool is
  // busy (a tile that parallelises again, or a second thread sharing the
  // pool) runs its tiles inline instead of waiting for it.
  void run(size_t tiles, TaskFn task, const void* ctx);

 private:
  struct Shared;
  Shared* shared_;
  size_t workers_;
#endif
};

// Thresholds under which a loop stays on the calling thread. Handing a tile
// to a worker that still spins costs well under a microsecond; waking a
// blocked one some 5-10 us (native/bench/thread_pool_probe). But the caller
// must wait for every worker that took a tile, and a worker the scheduler
// preempts (a busy machine, more threads than free cores) holds its tile for
// a time slice: the work must be large enough that such stalls are rare and
// small against it, or the smallest zoo models (20-100 us a run, their ops a
// few us each) get slower with threads. Measured on the zoo CNNs at 1 and 2
// threads on a loaded 2-core machine (benchmarks/scaling.py): at 2^18 FMAs /
// 2^16 elements several models ran up to 1.5x slower at 2 threads, at the
// values below none ran slower beyond noise: no op of the zoo's models (at
// their small configs) reaches them, so those stay on one thread; larger
// inputs split.
//   kParallelMinFmas: multiply-adds (GEMM, convolution, depthwise): 2^20 are
//     some 20-40 us on one core.
//   kParallelMinElements: elements of a memory-bound loop (element-wise maps,
//     pooling, reductions, softmax rows): 2^18 floats are 1 MiB read.
// A build may lower them (-DSB_PARALLEL_MIN_FMAS=... -DSB_PARALLEL_MIN_ELEMENTS=...):
// tests/test_threads.py does, so that the zoo's small models take every parallel path.
#ifndef SB_PARALLEL_MIN_FMAS
#define SB_PARALLEL_MIN_FMAS (uint64_t{1} << 20)
#endif
#ifndef SB_PARALLEL_MIN_ELEMENTS
#define SB_PARALLEL_MIN_ELEMENTS (uint64_t{1} << 18)
#endif
constexpr uint64_t kParallelMinFmas = SB_PARALLEL_MIN_FMAS;
constexpr uint64_t kParallelMinElements = SB_PARALLEL_MIN_ELEMENTS;

// `pool` when `work` reaches `min_work`, else nullptr (the loop stays on
// the calling thread).
inline ThreadPool* pool_for(ThreadPool* pool, uint64_t work, uint64_t min_work) {
  return work >= min_work ? pool : nullptr;
}

// fn(i) for every i < tiles, split over `pool` (nullptr: in order, on the
// calling thread). fn must write only what tile i owns.
template <class F>
void parallelize_1d(ThreadPool* pool, size_t tiles, const F& fn) {
#if SB_THREADS
  if (pool != nullptr && tiles > 1) {
    pool->run(
        tiles, [](const void* ctx, size_t i) { (*static_cast<const F*>(ctx))(i); }, &fn);
    return;
  }
#else
  (void)pool;
#endif
  for (size_t i = 0; i < tiles; ++i) fn(i);
}

// fn(i, j) for every i < rows, j < cols (tiles of a 2-D iteration space).
template <class F>
void parallelize_2d(ThreadPool* pool, size_t rows, size_t cols, const F& fn) {
  if (cols == 0) return;
  parallelize_1d(pool, rows * cols, [&fn, cols](size_t t) { fn(t / cols, t % cols); });
}

// Tiles of `step` items over [0, n): how many there are, for a loop whose
// tile t covers [t * step, min(n, (t + 1) * step)).
inline size_t tiles_of(int64_t n, int64_t step) {
  return n <= 0 || step <= 0 ? 0 : static_cast<size_t>((n + step - 1) / step);
}

}  // namespace sb
