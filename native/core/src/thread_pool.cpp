// sb/thread_pool.h: workers that spin a while after each job, then block.
//
// One atomic word holds the job's generation, whether it is open, and how
// many workers have joined it. run() writes the job, opens a new generation
// and takes tiles from one atomic counter like the workers; when none are
// left it closes the job and waits only for the workers that joined it. A
// worker joins with a compare-and-swap that fails once the job is closed, so
// a worker the scheduler has not run yet (a busy machine, more threads than
// cores) is never waited for: it finds the job closed and goes back to wait.
// Nothing here allocates after the constructor.
//
// Waiting spins first: a model's parallel loops come microseconds apart, and a
// worker still spinning picks the next job up in well under a microsecond,
// where waking a blocked one takes a futex call and a trip through the
// scheduler. After kSpinNs without work a worker blocks on a condition
// variable, so an idle pool costs no CPU. Sleeping is announced in a counter
// before the last check, and every access to the word and the counters is
// sequentially consistent, so a job published meanwhile is either seen by the
// check or finds the sleeper to notify; the caller sleeps the same way.
#include "sb/thread_pool.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace sb {
namespace {

// How long a worker (or the caller, waiting for the last tiles) spins before
// it blocks: longer than the gaps between a model's parallel loops (the
// serial ops between them), short enough that a pool between executes idles.
constexpr int64_t kSpinNs = 200 * 1000;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Spins until done() holds or kSpinNs pass; whether it holds.
template <class Done>
bool spin_until(const Done& done) {
  const int64_t start = now_ns();
  for (uint32_t i = 1;; ++i) {
    if (done()) return true;
    cpu_relax();
    // The clock every 64 turns: reading it costs more than a pause.
    if (i % 64 == 0 && now_ns() - start > kSpinNs) return done();
  }
}

}  // namespace

// The job word: joined workers in the low bits, then the open bit, then the generation.
constexpr uint64_t kJoinedMask = (uint64_t{1} << 32) - 1;
constexpr uint64_t kOpen = uint64_t{1} << 32;
constexpr uint64_t kGeneration = uint64_t{1} << 33;

struct ThreadPool::Shared {
  // The job, written by run() while no worker has joined and before the job opens.
  TaskFn task = nullptr;
  const void* ctx = nullptr;
  size_t tiles = 0;
  std::atomic<size_t> next{0};  // the next tile to take

  std::atomic<uint64_t> job{0};
  std::atomic<bool> busy{false};  // a run() is under way
  std::atomic<bool> stop{false};

  std::mutex mutex;
  std::condition_variable work_cv;  // workers wait here for a job
  std::condition_variable done_cv;  // the caller waits here for the joined workers
  std::atomic<size_t> sleepers{0};
  std::atomic<bool> caller_sleeps{false};

  std::thread* threads = nullptr;

  void take_tiles() {
    for (size_t i = next.fetch_add(1, std::memory_order_relaxed); i < tiles;
         i = next.fetch_add(1, std::memory_order_relaxed)) {
      task(ctx, i);
    }
  }

  void worker() {
    uint64_t seen = 0;  // the generation last looked at
    for (;;) {
      const auto published = [&] { return (job.load() & ~(kOpen | kJoinedMask)) != seen || stop.load(); };
      if (!spin_until(published)) {
        std::unique_lock<std::mutex> lock(mutex);
        sleepers.fetch_add(1);
        work_cv.wait(lock, published);
        sleepers.fetch_sub(1);
      }
      if (stop.load()) return;
      uint64_t word = job.load();
      seen = word & ~(kOpen | kJoinedMask);
      // Join while the job of this generation is open; a closed one is done without us.
      while ((word & kOpen) && (word & ~(kOpen | kJoinedMask)) == seen && !job.compare_exchange_weak(word, word + 1)) {
      }
      if (!(word & kOpen) || (word & ~(kOpen | kJoinedMask)) != seen) continue;
      take_tiles();
      if ((job.fetch_sub(1) & kJoinedMask) == 1 && caller_sleeps.load()) {
        std::lock_guard<std::mutex> lock(mutex);
        done_cv.notify_one();
      }
    }
  }
};

ThreadPool::ThreadPool(size_t threads) : shared_(new Shared), workers_(threads > 1 ? threads - 1 : 0) {
  shared_->threads = new std::thread[workers_];
  for (size_t i = 0; i < workers_; ++i) shared_->threads[i] = std::thread([s = shared_] { s->worker(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(shared_->mutex);
    shared_->stop.store(true);
  }
  shared_->work_cv.notify_all();
  for (size_t i = 0; i < workers_; ++i) shared_->threads[i].join();
  delete[] shared_->threads;
  delete shared_;
}

void ThreadPool::run(size_t tiles, TaskFn task, const void* ctx) {
  Shared& s = *shared_;
  if (workers_ == 0 || tiles < 2 || s.busy.exchange(true, std::memory_order_acquire)) {
    for (size_t i = 0; i < tiles; ++i) task(ctx, i);
    return;
  }
  s.task = task;
  s.ctx = ctx;
  s.tiles = tiles;
  s.next.store(0, std::memory_order_relaxed);
  // Opens the next generation (no worker is joined: the last run waited for them all).
  const uint64_t generation = (s.job.load() & ~(kOpen | kJoinedMask)) + kGeneration;
  s.job.store(generation | kOpen);
  if (s.sleepers.load() > 0) {
    std::lock_guard<std::mutex> lock(s.mutex);
    s.work_cv.notify_all();
  }
  s.take_tiles();
  s.job.fetch_and(~kOpen);  // no tile is left to take: no one else joins
  const auto finished = [&] { return (s.job.load() & kJoinedMask) == 0; };
  if (!spin_until(finished)) {
    std::unique_lock<std::mutex> lock(s.mutex);
    s.caller_sleeps.store(true);
    s.done_cv.wait(lock, finished);
    s.caller_sleeps.store(false);
  }
  s.busy.store(false, std::memory_order_release);
}

}  // namespace sb
