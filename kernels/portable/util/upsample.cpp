#include "util/upsample.h"

#include <cmath>

#include "util/shape.h"

namespace sb::kernels {
namespace {

float pixel_ratio(int64_t in, int64_t out, bool align_corners, double scale) {
  if (align_corners) return out > 1 ? static_cast<float>(in - 1) / static_cast<float>(out - 1) : 0.0f;
  return static_cast<float>(1.0 / scale);
}

}  // namespace

Error plan_upsample2d(const char* op, const Tensor& in, const Value& output_size, bool has_scales, double scale_h,
                      double scale_w, bool align_corners, Upsample2d* plan) {
  Upsample2d& p = *plan;
  if (in.dim != 4) return Error::make(ErrorCode::kInvalidArgument, "%s: input must be 4-D", op);
  p.planes = in.sizes[0] * in.sizes[1];
  p.h = in.sizes[2];
  p.w = in.sizes[3];
  if (!output_size.is_none()) {
    const Span<const int64_t> size = output_size.as_int_list;
    if (size.size() != 2) return Error::make(ErrorCode::kInvalidArgument, "%s: output_size needs 2 values", op);
    if (size[0] < 0 || size[1] < 0 || size[0] > kMaxGeometry || size[1] > kMaxGeometry) {
      return Error::make(ErrorCode::kInvalidArgument, "%s: output_size out of range", op);
    }
    p.oh = size[0];
    p.ow = size[1];
    if (!has_scales || !(scale_h > 0) || !(scale_w > 0)) {
      scale_h = p.h > 0 ? static_cast<double>(p.oh) / static_cast<double>(p.h) : 1.0;
      scale_w = p.w > 0 ? static_cast<double>(p.ow) / static_cast<double>(p.w) : 1.0;
    }
  } else if (has_scales) {
    const double limit = static_cast<double>(kMaxGeometry);
    if (!(scale_h > 0 && scale_h < limit) || !(scale_w > 0 && scale_w < limit)) {
      return Error::make(ErrorCode::kInvalidArgument, "%s: scale factors must be positive", op);
    }
    p.oh = static_cast<int64_t>(static_cast<double>(p.h) * scale_h);
    p.ow = static_cast<int64_t>(static_cast<double>(p.w) * scale_w);
  } else {
    return Error::make(ErrorCode::kInvalidArgument, "%s: needs output_size or scale factors", op);
  }
  if ((p.oh > 0 || p.ow > 0) && (p.h == 0 || p.w == 0)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: cannot upsample an empty input", op);
  }
  p.ratio_h = pixel_ratio(p.h, p.oh, align_corners, scale_h);
  p.ratio_w = pixel_ratio(p.w, p.ow, align_corners, scale_w);
  return Error();
}

Error plan_upsample2d_out(const char* op, const Tensor& in, const Value& output_size, bool has_scales,
                          double scale_h, double scale_w, bool align_corners, Tensor& out, Upsample2d* plan) {
  Error err = plan_upsample2d(op, in, output_size, has_scales, scale_h, scale_w, align_corners, plan);
  if (!err.ok()) return err;
  const int64_t sizes[] = {in.sizes[0], in.sizes[1], plan->oh, plan->ow};
  if (!(err = resize_output(op, out, sizes, 4)).ok()) return err;
  return check_dtype(op, "input", in, out.dtype);
}

}  // namespace sb::kernels
