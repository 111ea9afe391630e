#include "optimized/microkernels/reduce_block.h"

#include "optimized/simd/vec.h"
#include "optimized/simd/vec_reduce.h"
#include "sb/thread_pool.h"

namespace sb::optimized {

float sum_f32(const float* p, int64_t n) {
  // Four independent accumulators hide the add latency.
  VecF acc[4] = {};
  int64_t r = 0;
  for (; r + 4 * kLanes <= n; r += 4 * kLanes) {
    for (int k = 0; k < 4; ++k) acc[k] += load(p + r + k * kLanes);
  }
  for (; r + kLanes <= n; r += kLanes) acc[0] += load(p + r);
  if (r < n) acc[1] += load_tail(p + r, n - r);
  return reduce_add((acc[0] + acc[1]) + (acc[2] + acc[3]));
}

namespace {

// Lane l of the result: the sum of rows l of the block at p (`rows` <= kLanes rows of `count`
// contiguous floats, the rest zero). Partial sums go in vectors whose concatenation holds each row's
// m partials side by side (m a power of two <= kLanes), then pairwise sums of even and odd lanes
// halve m until one vector holds one sum per row.
VecF block_sums(const float* p, int64_t rows, int64_t count) {
  VecF v[kLanes];
  int64_t m = kLanes;
  if (count > 0 && count < kLanes && kLanes % count == 0) {  // count vectors hold the block
    m = count;
#pragma GCC unroll 1
    for (int64_t i = 0; i < m; ++i) {
      const int64_t left = rows * count - i * kLanes;
      v[i] = left >= kLanes ? load(p + i * kLanes) : (left > 0 ? load_tail(p + i * kLanes, left) : VecF{});
    }
  } else {
    // Row r's vectors: whole ones, then the last kLanes floats with the lanes already summed masked
    // (a row shorter than a vector: its floats alone).
    const VecI tail = ~first_lanes(kLanes - count % kLanes);
#pragma GCC unroll 1
    for (int64_t r = 0; r < kLanes; ++r) {
      VecF a = {}, b = {};
      const float* q = p + r * count;
      if (r >= rows) {
        // past the block: zero
      } else if (count < kLanes) {
        a = load_tail(q, count);
      } else {
        int64_t i = 0;
        for (; i + 2 * kLanes <= count; i += 2 * kLanes) {
          a += load(q + i);
          b += load(q + i + kLanes);
        }
        if (i + kLanes <= count) a += load(q + i);
        if (count % kLanes != 0) b += tail ? load(q + count - kLanes) : VecF{};
      }
      v[r] = a + b;
    }
  }
  for (; m > 1; m /= 2) {
#pragma GCC unroll 1
    for (int64_t i = 0; i < m / 2; ++i) v[i] = even_lanes(v[2 * i], v[2 * i + 1]) + odd_lanes(v[2 * i], v[2 * i + 1]);
  }
  return v[0];
}

// The loop itself, on one thread.
void sum_rows(const float* in, float* out, const ReductionBlock& block, float divisor) {
  const int64_t inner = block.inner;
  const int64_t count = block.count;
  if (inner == 1) {
    // One sum per row: kLanes rows at a time.
    for (int64_t o = 0; o < block.outer; o += kLanes) {
      const int64_t rows = block.outer - o < kLanes ? block.outer - o : kLanes;
      store_tail(out + o, block_sums(in + o * count, rows, count) / divisor, rows);
    }
    return;
  }
  for (int64_t o = 0; o < block.outer; ++o) {
    const float* base = in + o * count * inner;
    float* y = out + o * inner;
    int64_t i = 0;
    for (; i + kLanes <= inner; i += kLanes) {
      VecF acc = {};
      for (int64_t r = 0; r < count; ++r) acc += load(base + r * inner + i);
      store(y + i, acc / divisor);
    }
    if (i < inner) {
      const int64_t rest = inner - i;
      VecF acc = {};
      for (int64_t r = 0; r < count; ++r) acc += load_tail(base + r * inner + i, rest);
      store_tail(y + i, acc / divisor, rest);
    }
  }
}

}  // namespace

// Inputs per tile of a parallel reduction (its whole rows: at least one).
constexpr int64_t kReduceTileElements = 16 * 1024;

void sum_block_f32(const float* in, float* out, const ReductionBlock& block, float divisor, ThreadPool* pool) {
  const int64_t row = block.count * block.inner;  // inputs per output row
  pool = pool_for(pool, static_cast<uint64_t>(block.outer) * static_cast<uint64_t>(row), kParallelMinElements);
  if (pool == nullptr || block.outer < 2 || row <= 0) {
    sum_rows(in, out, block, divisor);
    return;
  }
  int64_t rows = (kReduceTileElements + row - 1) / row;
  if (block.inner == 1) rows = (rows + kLanes - 1) / kLanes * kLanes;  // the loop's groups of kLanes rows
  parallelize_1d(pool, tiles_of(block.outer, rows), [&](size_t t) {
    const int64_t o = static_cast<int64_t>(t) * rows;
    ReductionBlock part = block;
    part.outer = block.outer - o < rows ? block.outer - o : rows;
    sum_rows(in + o * row, out + o * block.inner, part, divisor);
  });
}

}  // namespace sb::optimized
