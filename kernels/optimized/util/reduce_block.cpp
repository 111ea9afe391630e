#include "optimized/util/reduce_block.h"

#include "optimized/util/vec.h"

namespace sb::optimized {

bool reduction_block(const Tensor& in, Span<const int64_t> dims, ReductionBlock* block) {
  bool reduced[kMaxDims] = {};
  for (int64_t d : dims) {
    const int64_t at = d < 0 ? d + in.dim : d;
    if (at < 0 || at >= in.dim) return false;
    reduced[at] = true;
  }
  if (dims.size() == 0) {
    for (int32_t d = 0; d < in.dim; ++d) reduced[d] = true;
  }
  int32_t first = -1;
  int32_t last = -1;
  for (int32_t d = 0; d < in.dim; ++d) {
    if (!reduced[d] || in.sizes[d] == 1) continue;
    if (first < 0) first = d;
    last = d;
  }
  ReductionBlock b;
  if (first < 0) {  // only size-1 dims reduced: each output element folds one input element
    b.inner = in.numel();
    *block = b;
    return true;
  }
  for (int32_t d = 0; d < in.dim; ++d) {
    if (d < first) {
      b.outer *= in.sizes[d];
    } else if (d > last) {
      b.inner *= in.sizes[d];
    } else if (!reduced[d] && in.sizes[d] != 1) {
      return false;  // a kept dim inside the reduced range: not one block
    } else {
      b.count *= in.sizes[d];
    }
  }
  *block = b;
  return true;
}

namespace {

float sum_row(const float* x, int64_t n) {
  // Four independent accumulators hide the add latency.
  VecF acc[4] = {};
  int64_t r = 0;
  for (; r + 4 * kLanes <= n; r += 4 * kLanes) {
    for (int k = 0; k < 4; ++k) acc[k] += load(x + r + k * kLanes);
  }
  for (; r + kLanes <= n; r += kLanes) acc[0] += load(x + r);
  if (r < n) acc[1] += load_partial(x + r, n - r);
  return reduce_add((acc[0] + acc[1]) + (acc[2] + acc[3]));
}

}  // namespace

void sum_block_f32(const float* in, float* out, const ReductionBlock& block, float scale) {
  const int64_t inner = block.inner;
  const int64_t count = block.count;
  for (int64_t o = 0; o < block.outer; ++o) {
    const float* base = in + o * count * inner;
    float* y = out + o * inner;
    if (inner == 1) {
      y[0] = sum_row(base, count) * scale;
      continue;
    }
    int64_t i = 0;
    for (; i + kLanes <= inner; i += kLanes) {
      VecF acc = {};
      for (int64_t r = 0; r < count; ++r) acc += load(base + r * inner + i);
      store(y + i, acc * scale);
    }
    if (i < inner) {
      const int64_t rest = inner - i;
      VecF acc = {};
      for (int64_t r = 0; r < count; ++r) acc += load_partial(base + r * inner + i, rest);
      store_partial(y + i, acc * scale, rest);
    }
  }
}

}  // namespace sb::optimized
