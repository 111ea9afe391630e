#include "optimized/util/pool_rows.h"

#include <cstring>
#include <utility>

#include "optimized/util/vec.h"

namespace sb::optimized {
namespace {

int64_t floor_div(int64_t a, int64_t b) { return a / b - ((a % b != 0) && (a < 0)); }
int64_t ceil_div(int64_t a, int64_t b) { return -floor_div(-a, b); }
int64_t clamp(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

// Lanes I of the concatenation a:b, e.g. the even elements of 2 * kLanes floats.
template <size_t... I>
VecF pick(VecF a, VecF b, std::index_sequence<I...>) {
  return __builtin_shufflevector(a, b, static_cast<int>(I)...);
}
template <size_t... I>
constexpr std::index_sequence<2 * I...> evens(std::index_sequence<I...>) {
  return {};
}
template <size_t... I>
constexpr std::index_sequence<(2 * I + 1)...> odds(std::index_sequence<I...>) {
  return {};
}
using EvenLanes = decltype(evens(std::make_index_sequence<kLanes>{}));
using OddLanes = decltype(odds(std::make_index_sequence<kLanes>{}));

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
        for (; i + kLanes < hi; i += kLanes, q += 2 * kLanes) store(dst + i, pick(load(q), load(q + kLanes), EvenLanes{}));
        if (i < hi && hi - lo >= kLanes) {
          // The last kLanes elements again, overlapping: the evens of the 2 * kLanes columns from
          // there when the row holds them all, else the odds of the run one column earlier.
          const int64_t i2 = hi - kLanes;
          const float* e = src + first + 2 * i2;
          if (first + 2 * i2 + 2 * kLanes <= in_w) {
            store(dst + i2, pick(load(e), load(e + kLanes), EvenLanes{}));
            i = hi;
          } else if (first + 2 * i2 >= 1) {
            store(dst + i2, pick(load(e - 1), load(e - 1 + kLanes), OddLanes{}));
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

float sum_f32(const float* p, int64_t n) {
  VecF a0 = {}, a1 = {}, a2 = {}, a3 = {};
  int64_t i = 0;
  for (; i + 4 * kLanes <= n; i += 4 * kLanes) {
    a0 += load(p + i);
    a1 += load(p + i + kLanes);
    a2 += load(p + i + 2 * kLanes);
    a3 += load(p + i + 3 * kLanes);
  }
  for (; i + kLanes <= n; i += kLanes) a0 += load(p + i);
  if (i < n) a1 += load_partial(p + i, n - i);
  return reduce_add((a0 + a1) + (a2 + a3));
}

}  // namespace sb::optimized

namespace sb::optimized {

bool plane_grid(int64_t out_h, int64_t out_w, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t dh, int64_t dw,
                int64_t max_floats, int64_t grid_arrays, PlaneGrid* g) {
  if (out_h < 1 || out_w < 1 || sh > 8 || sw > 8 || kh > max_floats || kw > max_floats || dh > max_floats ||
      dw > max_floats || out_h > max_floats || out_w > max_floats) {
    return false;
  }
  g->sh = sh;
  g->sw = sw;
  g->hq = ((out_h - 1) * sh + (kh - 1) * dh) / sh + 1;
  g->wq = ((out_w - 1) * sw + (kw - 1) * dw) / sw + 1;
  if (g->hq > max_floats || g->wq > max_floats || g->hq * g->wq > max_floats) return false;
  g->phase = g->hq * g->wq;
  g->grid = (out_h * g->wq + kLanes - 1) / kLanes * kLanes;
  g->in_floats = (sh * sw * g->phase + g->wq + kLanes + kLanes - 1) / kLanes * kLanes;
  return g->in_floats + grid_arrays * g->grid <= max_floats;
}

void fill_plane(float* xin, const PlaneGrid& g, const float* plane, int64_t in_h, int64_t in_w, int64_t pad_h,
                int64_t pad_w) {
  for (int64_t rp = 0; rp < g.sh; ++rp) {
    for (int64_t a = 0; a < g.hq; ++a) {
      const int64_t ih = a * g.sh + rp - pad_h;
      if (ih < 0 || ih >= in_h) continue;
      const float* src = plane + ih * in_w;
      float* dst = xin + rp * g.sw * g.phase + a * g.wq;
      for (int64_t cp = 0; cp < g.sw; ++cp) {
        // Phase cp element i is column i * sw + cp - pad_w.
        const int64_t lo = clamp(ceil_div(pad_w - cp, g.sw), 0, g.wq);
        const int64_t hi = clamp(ceil_div(in_w + pad_w - cp, g.sw), lo, g.wq);
        float* d = dst + cp * g.phase;
        const float* q = src + (cp - pad_w);
        if (g.sw == 1) {
          int64_t i = lo;
          for (; i + kLanes <= hi; i += kLanes) store(d + i, load(q + i));
          for (; i < hi; ++i) d[i] = q[i];
        } else {
          for (int64_t i = lo; i < hi; ++i) d[i] = q[i * g.sw];
        }
      }
    }
  }
}

}  // namespace sb::optimized
