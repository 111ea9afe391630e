// aten::upsample_nearest2d.vec_out: the float NCHW fast path of
// kernels/portable/op_upsample_nearest2d.cpp (same sizes, scales and source
// index rule, min(floor(dst * scale), in - 1) in float). Source columns come
// from a table built once per call; an output row whose source row is the
// previous row's is a copy of that row; a row of factor 2 (each input column
// twice) goes by vector shuffles, factor 1 by memcpy, any other pattern
// through the table. Everything else (other dtypes and dim orders, invalid
// arguments, rows wider than the table) goes to the portable kernel.
#include <cmath>
#include <cstdint>
#include <cstring>

#include "optimized/simd/vec.h"
#include "sb/kernel.h"
#include "util/shape.h"

namespace sb::kernels {
extern const KernelDef upsample_nearest2d_vec_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::upsample_nearest2d.vec_out";
constexpr int64_t kMaxCols = 4096;  // the source-column table: 16 KiB of stack

int64_t source_index(int64_t dst, float scale, int64_t in_size) {
  const int64_t src = static_cast<int64_t>(std::floor(static_cast<float>(dst) * scale));
  return src < in_size - 1 ? src : in_size - 1;
}

// cols[j] = source_index(j, scale, w) for j < ow (ow <= kMaxCols, 1 <= w <= 2^24,
// scale > 0), a vector at a time: j * scale in float as source_index takes
// it, clamped to w - 1 before the conversion (exact: w - 1 is a float),
// then truncated, which is floor for these non-negative values.
void column_table(float scale, int64_t w, int64_t ow, int32_t* cols) {
  VecF lane;
  for (int64_t l = 0; l < kLanes; ++l) lane[l] = static_cast<float>(l);
  const VecF last = splat(static_cast<float>(w - 1));
  for (int64_t j = 0; j < ow; j += kLanes) {
    const VecF pos = vmin((lane + static_cast<float>(j)) * scale, last);
    const VecI src = __builtin_convertvector(pos, VecI);
    const int64_t m = ow - j < kLanes ? ow - j : kLanes;
    std::memcpy(cols + j, &src, static_cast<size_t>(m) * sizeof(int32_t));
  }
}

// dst[2t] = dst[2t + 1] = src[t] for t < n.
void repeat_twice(const float* src, float* dst, int64_t n) {
  VecI lo, hi;
  for (int64_t l = 0; l < kLanes; ++l) {
    lo[l] = static_cast<int32_t>(l / 2);
    hi[l] = static_cast<int32_t>((l + kLanes) / 2);
  }
  int64_t t = 0;
  for (; t + kLanes <= n; t += kLanes) {
    const VecF v = load(src + t);
    store(dst + 2 * t, __builtin_shuffle(v, lo));
    store(dst + 2 * t + kLanes, __builtin_shuffle(v, hi));
  }
  const int64_t m = 2 * (n - t);  // output floats left
  if (m == 0) return;
  const VecF v = load_tail(src + t, n - t);
  if (m <= kLanes) {
    store_tail(dst + 2 * t, __builtin_shuffle(v, lo), m);
  } else {
    store(dst + 2 * t, __builtin_shuffle(v, lo));
    store_tail(dst + 2 * t + kLanes, __builtin_shuffle(v, hi), m - kLanes);
  }
}

Error upsample_impl(KernelContext& ctx, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  Tensor& out = *args[3]->as_tensor;
  const auto portable = [&] { return kernels::upsample_nearest2d_vec_out.fn(ctx, args); };
  if (in.dim != 4 || in.dtype != ScalarType::kFloat || out.dtype != ScalarType::kFloat || !in.is_default_dim_order()) {
    return portable();
  }
  const int64_t h = in.sizes[2], w = in.sizes[3];
  int64_t oh = 0, ow = 0;
  float scale_h = 0, scale_w = 0;
  if (!args[1]->is_none()) {
    const Span<const int64_t> size = args[1]->as_int_list;
    if (size.size() != 2) return portable();
    oh = size[0];
    ow = size[1];
  } else if (!args[2]->is_none()) {
    const Span<const double> scales = args[2]->as_double_list;
    const double limit = static_cast<double>(kernels::kMaxGeometry);
    if (scales.size() != 2 || !(scales[0] > 0 && scales[0] < limit) || !(scales[1] > 0 && scales[1] < limit)) {
      return portable();
    }
    oh = static_cast<int64_t>(std::floor(static_cast<double>(h) * scales[0]));
    ow = static_cast<int64_t>(std::floor(static_cast<double>(w) * scales[1]));
    scale_h = static_cast<float>(1.0 / scales[0]);
    scale_w = static_cast<float>(1.0 / scales[1]);
  } else {
    return portable();
  }
  const int64_t sizes[] = {in.sizes[0], in.sizes[1], oh, ow};
  if (!kernels::resize_output(kOp, out, sizes, 4).ok() || !out.is_default_dim_order() || ow > kMaxCols ||
      w > kernels::kMaxGeometry) {
    return portable();
  }
  if (oh < 1 || ow < 1 || h < 1 || w < 1) return Error();
  if (scale_h == 0) {
    scale_h = static_cast<float>(h) / static_cast<float>(oh);
    scale_w = static_cast<float>(w) / static_cast<float>(ow);
  }
  int32_t cols[kMaxCols];
  column_table(scale_w, w, ow, cols);
  const int64_t factor = ow % w == 0 ? ow / w : 0;
  bool uniform = factor == 1 || factor == 2;  // cols[j] == j / factor for every j
  for (int64_t j = 0; uniform && j < ow; ++j) uniform = cols[j] == j / factor;
  const int64_t planes = in.sizes[0] * in.sizes[1];
  const float* x = in.data_as<float>();
  float* y = out.data_as<float>();
  const size_t row_bytes = static_cast<size_t>(ow) * sizeof(float);
  for (int64_t p = 0; p < planes; ++p, x += h * w) {
    int64_t prev = -1;
    for (int64_t i = 0; i < oh; ++i, y += ow) {
      const int64_t r = source_index(i, scale_h, h);
      if (r == prev) {
        std::memcpy(y, y - ow, row_bytes);
        continue;
      }
      prev = r;
      const float* row = x + r * w;
      if (uniform && factor == 2) {
        repeat_twice(row, y, w);
      } else if (uniform) {
        std::memcpy(y, row, row_bytes);
      } else {
        for (int64_t j = 0; j < ow; ++j) y[j] = row[cols[j]];
      }
    }
  }
  return Error();
}

}  // namespace

extern const KernelDef opt_upsample_nearest2d_vec_out{kOp, "TJE|T", &upsample_impl, {}, LayoutPolicy::kAny};

}  // namespace sb::optimized
