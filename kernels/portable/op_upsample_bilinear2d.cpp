// aten::upsample_bilinear2d.vec_out(Tensor input, SymInt[]? output_size, bool align_corners, float[]? scale_factors,
//                                   *, Tensor(a!) out)
#include <cmath>
#include <limits>
#include <type_traits>

#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/pool.h"
#include "util/shape.h"
#include "util/upsample.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::upsample_bilinear2d.vec_out";

// The two source pixels of an output pixel along one axis and their weights.
struct Taps {
  int64_t i0, i1;
  float w0, w1;
};

Taps taps(float ratio, int64_t dst, int64_t in, int64_t out, bool align_corners) {
  if (in == out) return {dst, dst, 1.0f, 0.0f};
  const float src = upsample_source(ratio, dst, align_corners);
  const float fl = std::floor(src);
  const int64_t i0 = fl < static_cast<float>(in - 1) ? static_cast<int64_t>(fl) : in - 1;
  float l1 = src - static_cast<float>(i0);
  l1 = l1 < 0.0f ? 0.0f : l1 > 1.0f ? 1.0f : l1;
  return {i0, i0 + (i0 < in - 1 ? 1 : 0), 1.0f - l1, l1};
}

// Integer results truncate like a C++ conversion (as ExecuTorch's kernel), clamped to the type's range.
template <typename T, typename C>
T store(C v) {
  if constexpr (std::is_integral_v<T>) {
    const C lo = static_cast<C>(std::numeric_limits<T>::lowest());
    const C hi = static_cast<C>(std::numeric_limits<T>::max());
    if (!(v > lo)) return std::numeric_limits<T>::lowest();
    if (!(v < hi)) return std::numeric_limits<T>::max();
  }
  return static_cast<T>(v);
}

Error upsample_bilinear2d_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  const bool align_corners = args[2]->as_bool;
  Tensor& out = *args[4]->as_tensor;
  const bool has_scales = !args[3]->is_none();
  if (has_scales && args[3]->as_double_list.size() != 2) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: scale_factors needs 2 values", kOp);
  }
  if (has_scales == !args[1]->is_none()) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: give exactly one of output_size and scale_factors", kOp);
  }
  const double sh = has_scales ? args[3]->as_double_list[0] : 0.0;
  const double sw = has_scales ? args[3]->as_double_list[1] : 0.0;
  Upsample2d g;
  Error err = plan_upsample2d_out(kOp, in, *args[1], has_scales, sh, sw, align_corners, out, &g);
  if (!err.ok()) return err;
  return switch_dtype<kOp, kRealHBF16>(out.dtype, [&](auto zero) {
    using T = decltype(zero);
    using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
    const T* x = in.data_as<const T>();
    T* y = out.data_as<T>();
    // Any dim order: input and out are each read through their own strides.
    const PlaneIndex xi(in), yi(out);
    for (int64_t p = 0; p < g.planes; ++p) {
      const T* plane = x + xi.plane(p);
      for (int64_t i = 0; i < g.oh; ++i) {
        const Taps th = taps(g.ratio_h, i, g.h, g.oh, align_corners);
        const T* r0 = plane + th.i0 * xi.h;
        const T* r1 = plane + th.i1 * xi.h;
        T* dst = y + yi.plane(p) + i * yi.h;
        for (int64_t j = 0; j < g.ow; ++j) {
          const Taps tw = taps(g.ratio_w, j, g.w, g.ow, align_corners);
          const int64_t a = tw.i0 * xi.w, b = tw.i1 * xi.w;
          const C top = static_cast<C>(r0[a]) * tw.w0 + static_cast<C>(r0[b]) * tw.w1;
          const C bottom = static_cast<C>(r1[a]) * tw.w0 + static_cast<C>(r1[b]) * tw.w1;
          dst[j * yi.w] = store<T>(top * th.w0 + bottom * th.w1);
        }
      }
    }
    return Error();
  });
}

}  // namespace

extern const KernelDef upsample_bilinear2d_vec_out{kOp, "TJbE|T", &upsample_bilinear2d_out_impl, {},
    LayoutPolicy::kAny};

}  // namespace sb::kernels
