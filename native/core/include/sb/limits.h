// The budgets a program runs under. A program file is untrusted input: its
// sizes decide how much memory load() allocates, and its jumps decide how
// long execute() runs. Both are bounded here, deterministically.
#pragma once

#include <cstdint>

namespace sb {

class ThreadPool;

struct RuntimeLimits {
  // Everything load() allocates for a program: memory-planned buffers,
  // inputs that are not planned, the values, list, operator and instruction
  // tables. Checked before each allocation. 1 GiB holds the activations of
  // real mobile models many times over (the zoo needs at most a few MiB) and
  // keeps a runner, with the program file and its input copies, well inside
  // the address space the bot grants a runtime process.
  uint64_t memory_bytes = uint64_t{1} << 30;

  // Work one execute() may do. Each instruction costs kInstructionCost plus
  // the bytes of every tensor and list it is passed (what an elementwise or
  // reduction kernel reads and writes), so a program that loops over a large
  // kernel runs out of budget in proportion to what it touches. 16 GiB is
  // 16 times the memory budget, several times what a forward pass over 1 GiB
  // of weights touches, and thousands of times a zoo model's pass (at most
  // 2 MB). Kernels whose work grows faster than their operands (matmul,
  // convolution) are charged only for their operands.
  uint64_t work_bytes = uint64_t{1} << 34;

  // execute() stops between instructions once monotonic_ns() passes this;
  // 0 means no deadline. Kernels are not interrupted.
  uint64_t deadline_ns = 0;

  // The cores execute() may use: the caller's pool (sb/thread_pool.h), whose
  // workers the kernels split their loops over; nullptr runs every kernel on
  // the calling thread. Borrowed: it must outlive every execute() given it,
  // and serve one execute() at a time.
  ThreadPool* threads = nullptr;
};

// What one executed instruction costs at least, in work bytes: a loop of
// jumps and moves must also run out of budget.
constexpr uint64_t kInstructionCost = 64;

// Nanoseconds of a monotonic clock, for deadlines.
uint64_t monotonic_ns();

}  // namespace sb
