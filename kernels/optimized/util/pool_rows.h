// Row helpers shared by the optimized depthwise convolution and pooling kernels.
#pragma once

#include <cstdint>

namespace sb::optimized {

// One input row into `s` stride phases of `phase_len` floats each: phase p,
// element i is src[base + p + s * i] where that column is inside [0, in_w),
// `pad` elsewhere. Every tap of a window sliding by s over the row is then a
// contiguous run of one phase. Phase p starts at dst + p * phase_stride (default: phase_len, the
// phases back to back). Reads src only inside [0, in_w).
void fill_phase_row(float* dst, const float* src, int64_t in_w, int64_t base, int64_t s, int64_t phase_len, float pad,
                    int64_t phase_stride = 0);

// Sum of p[0..n), vectorised (several accumulators).
float sum_f32(const float* p, int64_t n);

}  // namespace sb::optimized

namespace sb::optimized {

// A whole input plane in scratch, padded and split by the strides into row and
// column phases: padded row R, column C (input ih = R - pad_h, iw = C - pad_w)
// lives in phase ((R % sh) * sw + C % sw) at (R / sh) * wq + C / sw. A window
// tap (ki, kj) of output (oh, ow) is then element (oh * wq + ow) of the run
// starting at tap_offset(ki, kj): every tap is one contiguous run over the
// output plane laid on a wq-wide grid (columns ow >= out_w are discarded).
struct PlaneGrid {
  int64_t sh, sw, hq, wq, phase;  // phase = hq * wq floats
  int64_t in_floats;              // the phases plus read slack (a row and a vector)
  int64_t grid;                   // out_h * wq rounded up to whole vectors
  int64_t tap_offset(int64_t r, int64_t c) const {  // r = ki * dh, c = kj * dw
    return ((r % sh) * sw + c % sw) * phase + (r / sh) * wq + c / sw;
  }
};

// The layout for this geometry; false when it needs more than `max_floats` for
// the phases plus `grid_arrays` grid-sized arrays, or a step above 8.
bool plane_grid(int64_t out_h, int64_t out_w, int64_t kh, int64_t kw, int64_t sh, int64_t sw, int64_t dh, int64_t dw,
                int64_t max_floats, int64_t grid_arrays, PlaneGrid* g);

// Writes the input plane's elements into their phase positions; the padding
// positions are not touched (the caller fills the scratch with the pad value
// once: they are the same for every plane).
void fill_plane(float* xin, const PlaneGrid& g, const float* plane, int64_t in_h, int64_t in_w, int64_t pad_h,
                int64_t pad_w);

}  // namespace sb::optimized
