// aten::upsample_nearest2d.vec_out(Tensor input, SymInt[]? output_size, float[]? scale_factors, *, Tensor(a!) out)
#include <cmath>

#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/pool.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::upsample_nearest2d.vec_out";

// Source index for output index `dst`, as PyTorch's legacy "nearest" computes it.
int64_t source_index(int64_t dst, float scale, int64_t in_size) {
  const int64_t src = static_cast<int64_t>(std::floor(static_cast<float>(dst) * scale));
  return src < in_size - 1 ? src : in_size - 1;
}

Error upsample_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  Tensor& out = *args[3]->as_tensor;
  if (in.dim != 4) return Error::make(ErrorCode::kInvalidArgument, "%s: input must be 4-D", kOp);
  int64_t oh = 0, ow = 0;
  float scale_h = 0, scale_w = 0;
  if (!args[1]->is_none()) {
    const Span<const int64_t> size = args[1]->as_int_list;
    if (size.size() != 2) return Error::make(ErrorCode::kInvalidArgument, "%s: output_size needs 2 values", kOp);
    oh = size[0];
    ow = size[1];
  } else if (!args[2]->is_none()) {
    const Span<const double> scales = args[2]->as_double_list;
    const double limit = static_cast<double>(kMaxGeometry);
    if (scales.size() != 2 || !(scales[0] > 0 && scales[0] < limit) || !(scales[1] > 0 && scales[1] < limit)) {
      return Error::make(ErrorCode::kInvalidArgument, "%s: scale_factors needs 2 positive values", kOp);
    }
    oh = static_cast<int64_t>(std::floor(static_cast<double>(in.sizes[2]) * scales[0]));
    ow = static_cast<int64_t>(std::floor(static_cast<double>(in.sizes[3]) * scales[1]));
    scale_h = static_cast<float>(1.0 / scales[0]);
    scale_w = static_cast<float>(1.0 / scales[1]);
  } else {
    return Error::make(ErrorCode::kInvalidArgument, "%s: needs output_size or scale_factors", kOp);
  }
  const int64_t sizes[] = {in.sizes[0], in.sizes[1], oh, ow};
  Error err = resize_output(kOp, out, sizes, 4);
  if (!err.ok()) return err;
  if (!(err = check_dtype(kOp, "input", in, out.dtype)).ok()) return err;
  if (oh < 1 || ow < 1 || in.sizes[2] < 1 || in.sizes[3] < 1) return Error();
  if (scale_h == 0) {
    scale_h = static_cast<float>(in.sizes[2]) / static_cast<float>(oh);
    scale_w = static_cast<float>(in.sizes[3]) / static_cast<float>(ow);
  }

  return switch_dtype<kOp, kRealHBF16>(out.dtype, [&](auto zero) {
    using T = decltype(zero);
    const int64_t h = in.sizes[2], w = in.sizes[3];
    const int64_t planes = in.sizes[0] * in.sizes[1];
    const T* x = in.data_as<T>();
    T* y = out.data_as<T>();
    // Any dim order: input and out are each read through their own strides.
    const PlaneIndex xi(in), yi(out);
    for (int64_t p = 0; p < planes; ++p) {
      for (int64_t i = 0; i < oh; ++i) {
        const T* row = x + xi.plane(p) + source_index(i, scale_h, h) * xi.h;
        T* dst = y + yi.plane(p) + i * yi.h;
        for (int64_t j = 0; j < ow; ++j) dst[j * yi.w] = row[source_index(j, scale_w, w) * xi.w];
      }
    }
    return Error();
  });
}

}  // namespace

extern const KernelDef upsample_nearest2d_vec_out{kOp, "TJE|T", &upsample_out_impl, {}, LayoutPolicy::kAny};

}  // namespace sb::kernels
