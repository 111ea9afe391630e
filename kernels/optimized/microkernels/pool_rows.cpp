#include "optimized/microkernels/pool_rows.h"

#include <cstring>

#include "optimized/simd/vec.h"
#include "optimized/simd/vec_reduce.h"

namespace sb::optimized {
namespace {

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && (a < 0)); }
int64_t ceil_div(int64_t a, int64_t b) { return -floor_div(-a, b); }
int64_t clamp(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

void fill(float* dst, int64_t n, float v) {
  if (v == 0.0f) {
    std::memset(dst, 0, static_cast<size_t>(n) * sizeof(float));
  } else {
    for (int64_t i = 0; i < n; ++i) dst[i] = v;
  }
}

}  // namespace

void fill_phase_row(float* dst, const float* src, int64_t in_w, int64_t base, int64_t s, int64_t phase_len, float pad,
                    int64_t phase_stride) {
  if (phase_stride == 0) phase_stride = phase_len;
  for (int64_t p = 0; p < s; ++p, dst += phase_stride) {
    const int64_t first = base + p;  // input column of dst[0]
    const int64_t lo = clamp(ceil_div(-first, s), 0, phase_len);
    const int64_t hi = clamp(ceil_div(in_w - first, s), lo, phase_len);
    fill(dst, lo, pad);
    if (hi == lo) {
      // nothing of the row in this phase (an empty row included: src may be null)
    } else if (s == 1) {
      std::memcpy(dst + lo, src + first + lo, static_cast<size_t>(hi - lo) * sizeof(float));
    } else {
      const float* q = src + first + s * lo;
      int64_t i = lo;
      if (s == 2) {
        // Two vectors cover 2 * kLanes columns; the last one read stays inside the row (i + kLanes < hi).
        for (; i + kLanes < hi; i += kLanes, q += 2 * kLanes) store(dst + i, even_lanes(load(q), load(q + kLanes)));
        if (i < hi && hi - lo >= kLanes) {
          // The last kLanes elements again, overlapping: the evens of the 2 * kLanes columns from
          // there when the row holds them all, else the odds of the run one column earlier.
          const int64_t i2 = hi - kLanes;
          const float* e = src + first + 2 * i2;
          if (first + 2 * i2 + 2 * kLanes <= in_w) {
            store(dst + i2, even_lanes(load(e), load(e + kLanes)));
            i = hi;
          } else if (first + 2 * i2 >= 1) {
            store(dst + i2, odd_lanes(load(e - 1), load(e - 1 + kLanes)));
            i = hi;
          }
          q = src + first + s * i;
        }
      }
      for (; i < hi; ++i, q += s) dst[i] = *q;
    }
    fill(dst + hi, phase_len - hi, pad);
  }
}

VecF load_upto(const float* p, int64_t left) { return left > 0 ? load_tail(p, left) : VecF{}; }

}  // namespace sb::optimized
