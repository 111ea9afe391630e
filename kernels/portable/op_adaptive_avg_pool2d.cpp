// aten::_adaptive_avg_pool2d.out(Tensor self, SymInt[2] output_size, *, Tensor(a!) out)
//
// Output cell (oh, ow) averages input rows [floor(oh*H/OH), ceil((oh+1)*H/OH))
// and the matching columns (exact integer bounds, as ATen). Integers average
// by truncating division.
#include "sb/kernel.h"
#include "util/arith_ops.h"
#include "util/dtype_switch.h"
#include "util/pool.h"
#include "util/promote.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::_adaptive_avg_pool2d.out";

Error adaptive_avg_pool2d_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Span<const int64_t> output_size = args[1]->as_int_list;
  Tensor& out = *args[2]->as_tensor;
  if (self.dim != 3 && self.dim != 4) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: input must be 3-D or 4-D", kOp);
  }
  if (output_size.size() != 2 || output_size[0] < 0 || output_size[1] < 0 || !plausible_geometry(output_size[0]) ||
      !plausible_geometry(output_size[1])) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: output_size must be two sizes >= 0", kOp);
  }
  const int64_t h = self.sizes[self.dim - 2];
  const int64_t w = self.sizes[self.dim - 1];
  for (int32_t d = self.dim - 3; d < self.dim; ++d) {
    if (self.sizes[d] <= 0) return Error::make(ErrorCode::kInvalidArgument, "%s: input has an empty dim %d", kOp, static_cast<int>(d));
  }
  Error err = check_dtype(kOp, "out", out, self.dtype);
  if (!err.ok()) return err;
  const int64_t oh_size = output_size[0];
  const int64_t ow_size = output_size[1];
  int64_t sizes[kMaxDims];
  pooled_sizes(self, oh_size, ow_size, sizes);
  if (!(err = resize_output(kOp, out, sizes, self.dim)).ok()) return err;

  const int64_t planes = size_product(self, 0, self.dim - 2);
  return switch_dtype<kOp, kFloatHBF16 | kLongType>(self.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* x = self.data_as<T>();
    T* y = out.data_as<T>();
    // Any dim order: input and out are each read through their own strides.
    const PlaneIndex xi(self), yi(out);
    for (int64_t p = 0; p < planes; ++p) {
      const T* plane = x + xi.plane(p);
      for (int64_t oh = 0; oh < oh_size; ++oh) {
        const int64_t h0 = adaptive_start(oh, oh_size, h);
        const int64_t h1 = adaptive_end(oh, oh_size, h);
        for (int64_t ow = 0; ow < ow_size; ++ow) {
          const int64_t w0 = adaptive_start(ow, ow_size, w);
          const int64_t w1 = adaptive_end(ow, ow_size, w);
          compute_t<T> sum = 0;
          for (int64_t ih = h0; ih < h1; ++ih) {
            for (int64_t iw = w0; iw < w1; ++iw) sum = arith::add(sum, static_cast<compute_t<T>>(plane[ih * xi.h + iw * xi.w]));
          }
          const int64_t count = (h1 - h0) * (w1 - w0);
          y[yi.plane(p) + oh * yi.h + ow * yi.w] = static_cast<T>(sum / static_cast<compute_t<T>>(count));
        }
      }
    }
    return Error();
  });
}

}  // namespace

extern const KernelDef _adaptive_avg_pool2d_out{kOp, "TI|T", &adaptive_avg_pool2d_impl, {}, LayoutPolicy::kAny};

}  // namespace sb::kernels
