// aten::_adaptive_avg_pool2d.out, optimized: fp32, default dim order. Output
// cell (oh, ow) averages input rows [floor(oh*H/OH), ceil((oh+1)*H/OH)) and
// the matching columns (ATen's windows); each window row is a contiguous run
// summed with vectors, a window spanning whole rows one run. Everything else
// goes to the portable kernel.
#include "optimized/microkernels/reduce_block.h"
#include "sb/kernel.h"
#include "util/pool.h"
#include "util/shape.h"

namespace sb::kernels {
extern const KernelDef _adaptive_avg_pool2d_out;
}

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::_adaptive_avg_pool2d.out";

Error adaptive_avg_pool_impl(KernelContext& ctx, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Span<const int64_t> output_size = args[1]->as_int_list;
  Tensor& out = *args[2]->as_tensor;
  if (self.dtype != ScalarType::kFloat || out.dtype != ScalarType::kFloat || !self.is_default_dim_order() ||
      !out.is_default_dim_order() || (self.dim != 3 && self.dim != 4) || output_size.size() != 2 ||
      output_size[0] < 1 || output_size[1] < 1 || !kernels::plausible_geometry(output_size[0]) ||
      !kernels::plausible_geometry(output_size[1])) {
    return kernels::_adaptive_avg_pool2d_out.fn(ctx, args);  // its checks and messages
  }
  for (int32_t d = self.dim - 3; d < self.dim; ++d) {
    if (self.sizes[d] <= 0) return kernels::_adaptive_avg_pool2d_out.fn(ctx, args);
  }
  const int64_t h = self.sizes[self.dim - 2];
  const int64_t w = self.sizes[self.dim - 1];
  const int64_t oh_size = output_size[0];
  const int64_t ow_size = output_size[1];
  int64_t sizes[kMaxDims];
  kernels::pooled_sizes(self, oh_size, ow_size, sizes);
  Error err = kernels::resize_output(kOp, out, sizes, self.dim);
  if (!err.ok()) return err;

  const int64_t planes = kernels::size_product(self, 0, self.dim - 2);
  const float* x = self.data_as<float>();
  float* y = out.data_as<float>();
  for (int64_t p = 0; p < planes; ++p) {
    const float* plane = x + p * h * w;
    for (int64_t oh = 0; oh < oh_size; ++oh) {
      const int64_t h0 = kernels::adaptive_start(oh, oh_size, h);
      const int64_t h1 = kernels::adaptive_end(oh, oh_size, h);
      for (int64_t ow = 0; ow < ow_size; ++ow) {
        const int64_t w0 = kernels::adaptive_start(ow, ow_size, w);
        const int64_t w1 = kernels::adaptive_end(ow, ow_size, w);
        float sum = 0.0f;
        if (w0 == 0 && w1 == w) {
          sum = sum_f32(plane + h0 * w, (h1 - h0) * w);
        } else {
          for (int64_t ih = h0; ih < h1; ++ih) sum += sum_f32(plane + ih * w + w0, w1 - w0);
        }
        *y++ = sum / static_cast<float>((h1 - h0) * (w1 - w0));
      }
    }
  }
  return Error();
}

}  // namespace

extern const KernelDef opt_adaptive_avg_pool2d_out{kOp, "TI|T", &adaptive_avg_pool_impl, {}, LayoutPolicy::kAny};

}  // namespace sb::optimized
