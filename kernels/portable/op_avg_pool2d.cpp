// aten::avg_pool2d.out(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0,
//     bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/pool.h"
#include "util/promote.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::avg_pool2d.out";

int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }
int64_t max64(int64_t a, int64_t b) { return a > b ? a : b; }

Error avg_pool_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  const bool count_include_pad = args[5]->as_bool;
  const int64_t divisor_override = args[6]->is_none() ? 0 : args[6]->as_int;
  Tensor& out = *args[7]->as_tensor;
  PoolGeometry g{};
  Error err = pool_geometry(kOp, in, args[1]->as_int_list, args[2]->as_int_list, args[3]->as_int_list,
                            Span<const int64_t>(), args[4]->as_bool, &g);
  if (!err.ok()) return err;
  int64_t sizes[kMaxDims];
  pool_out_sizes(in, g, sizes);
  if (!(err = resize_output(kOp, out, sizes, in.dim)).ok()) return err;
  if (!(err = check_dtype(kOp, "self", in, out.dtype)).ok()) return err;
  if (!args[6]->is_none() && divisor_override == 0) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: divisor_override must be non-zero", kOp);
  }

  return switch_dtype<kOp, kFloatHBF16 | kLongType>(out.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* x = in.data_as<T>();
    T* y = out.data_as<T>();
    // Any dim order: input and out are each read through their own strides.
    const PlaneIndex xi(in), yi(out);
    for (int64_t p = 0; p < g.planes; ++p) {
      const T* plane = x + xi.plane(p);
      for (int64_t oh = 0; oh < g.oh; ++oh) {
        for (int64_t ow = 0; ow < g.ow; ++ow) {
          // The window clipped to input + padding counts for count_include_pad;
          // clipped to the input, it is what is summed.
          const int64_t h0 = oh * g.sh - g.ph, w0 = ow * g.sw - g.pw;
          const int64_t h1 = min64(h0 + g.kh, g.h + g.ph), w1 = min64(w0 + g.kw, g.w + g.pw);
          const int64_t padded = (h1 - h0) * (w1 - w0);
          const int64_t hs = max64(h0, 0), ws = max64(w0, 0), he = min64(h1, g.h), we = min64(w1, g.w);
          double sum = 0.0;
          for (int64_t ih = hs; ih < he; ++ih) {
            for (int64_t iw = ws; iw < we; ++iw) sum += static_cast<double>(convert<compute_t<T>>(plane[ih * xi.h + iw * xi.w]));
          }
          const int64_t divisor = divisor_override ? divisor_override
                                  : count_include_pad ? padded
                                                      : (he - hs) * (we - ws);
          y[yi.plane(p) + oh * yi.h + ow * yi.w] = divisor > 0 ? convert<T>(sum / static_cast<double>(divisor)) : T(0);
        }
      }
    }
    return Error();
  });
}

}  // namespace

extern const KernelDef avg_pool2d_out{kOp, "TIIIbbn|T", &avg_pool_out_impl, {}, LayoutPolicy::kAny};

}  // namespace sb::kernels
