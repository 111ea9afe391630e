// aten::_upsample_bilinear2d_aa.out(Tensor self, SymInt[2] output_size, bool align_corners, float? scales_h=None,
//                                   float? scales_w=None, *, Tensor(a!) out)
// Anti-aliased bilinear resampling: each output pixel is a normalized triangle-filter average over the input pixels
// under it, the filter widened by the downscale factor (so a downscale averages instead of skipping pixels).
#include <cmath>
#include <limits>
#include <type_traits>

#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/shape.h"
#include "util/upsample.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::_upsample_bilinear2d_aa.out";

float triangle(float x) {
  x = std::fabs(x);
  return x < 1.0f ? 1.0f - x : 0.0f;
}

// The input pixels [lo, hi) under one output pixel along an axis; weight(i) is already normalized.
struct Footprint {
  int64_t lo = 0, hi = 0;
  int64_t only = -1;  // >= 0: the filter covered nothing, this pixel takes weight 1
  float center = 0, inv = 1, total = 1;

  float weight(int64_t i) const {
    if (only >= 0) return i == only ? 1.0f : 0.0f;
    return triangle((static_cast<float>(i) - center + 0.5f) * inv) / total;
  }
};

Footprint footprint(float ratio, int64_t dst, int64_t in) {
  Footprint f;
  f.center = ratio * (static_cast<float>(dst) + 0.5f);
  const float support = ratio >= 1.0f ? ratio : 1.0f;
  f.inv = ratio >= 1.0f ? 1.0f / ratio : 1.0f;
  const int64_t lo = static_cast<int64_t>(f.center - support + 0.5f);
  const int64_t hi = static_cast<int64_t>(f.center + support + 0.5f);
  f.lo = lo > 0 ? lo : 0;
  f.hi = hi < in ? hi : in;
  float total = 0.0f;
  for (int64_t i = f.lo; i < f.hi; ++i) total += triangle((static_cast<float>(i) - f.center + 0.5f) * f.inv);
  if (f.hi <= f.lo || !(total > 0.0f)) {
    const int64_t c = static_cast<int64_t>(f.center);
    f.only = c < in - 1 ? (c > 0 ? c : 0) : in - 1;
    f.lo = f.only;
    f.hi = f.only + 1;
    total = 1.0f;
  }
  f.total = total;
  return f;
}

// `acc += v` in the kernel's accumulator type T, as ExecuTorch's kernel sums: integers truncate at each step (clamped
// to the type's range), Half/BFloat16 round the term and the sum.
template <typename T, typename C>
T accumulate(T acc, C v) {
  if constexpr (std::is_integral_v<T>) {
    const C s = static_cast<C>(acc) + v;
    const C lo = static_cast<C>(std::numeric_limits<T>::lowest());
    const C hi = static_cast<C>(std::numeric_limits<T>::max());
    if (!(s > lo)) return std::numeric_limits<T>::lowest();
    if (!(s < hi)) return std::numeric_limits<T>::max();
    return static_cast<T>(s);
  } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    return static_cast<T>(static_cast<C>(acc) + v);
  } else {
    return T(static_cast<float>(acc) + static_cast<float>(T(static_cast<float>(v))));
  }
}

Error upsample_bilinear2d_aa_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  const bool align_corners = args[2]->as_bool;
  Tensor& out = *args[5]->as_tensor;
  const Span<const int64_t> size = args[1]->as_int_list;
  if (size.size() != 2 || size[0] <= 0 || size[1] <= 0) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: output_size needs 2 positive values", kOp);
  }
  const bool has_scales = !args[3]->is_none() && !args[4]->is_none();
  const double sh = has_scales ? args[3]->scalar_as_double() : 0.0;
  const double sw = has_scales ? args[4]->scalar_as_double() : 0.0;
  Upsample2d g;
  Error err = plan_upsample2d_out(kOp, in, *args[1], has_scales, sh, sw, align_corners, out, &g);
  if (!err.ok()) return err;
  return switch_dtype<kOp, kRealHBF16>(out.dtype, [&](auto zero) {
    using T = decltype(zero);
    using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
    const T* x = in.data_as<const T>();
    T* y = out.data_as<T>();
    for (int64_t p = 0; p < g.planes; ++p) {
      const T* plane = x + p * g.h * g.w;
      for (int64_t i = 0; i < g.oh; ++i) {
        const Footprint fh = footprint(g.ratio_h, i, g.h);
        for (int64_t j = 0; j < g.ow; ++j) {
          const Footprint fw = footprint(g.ratio_w, j, g.w);
          T acc = T(0);
          for (int64_t r = fh.lo; r < fh.hi; ++r) {
            const float wr = fh.weight(r);
            for (int64_t c = fw.lo; c < fw.hi; ++c) {
              acc = accumulate<T, C>(acc, static_cast<C>(plane[r * g.w + c]) * wr * fw.weight(c));
            }
          }
          *y++ = acc;
        }
      }
    }
    return Error();
  });
}

}  // namespace

extern const KernelDef _upsample_bilinear2d_aa_out{kOp, "TIbSS|T", &upsample_bilinear2d_aa_out_impl, {}};

}  // namespace sb::kernels
