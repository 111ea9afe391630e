#include "util/pad.h"

#include "util/shape.h"

namespace sb::kernels {

Error plan_pad(const char* op, const Tensor& in, Span<const int64_t> pad, PadMode mode, PadPlan* plan) {
  PadPlan& p = *plan;
  p = PadPlan();
  p.mode = mode;
  p.rank = in.dim;
  if (pad.size() % 2 != 0) return Error::make(ErrorCode::kInvalidArgument, "%s: padding has an odd length", op);
  if (pad.size() / 2 > static_cast<size_t>(in.dim)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: padding covers %zu dims of a rank-%d tensor", op,
                       pad.size() / 2, static_cast<int>(in.dim));
  }
  contiguous_strides(in, p.in_strides);
  for (int32_t d = 0; d < in.dim; ++d) {
    p.in_sizes[d] = in.sizes[d];
    p.out_sizes[d] = in.sizes[d];
  }
  for (size_t k = 0; k < pad.size() / 2; ++k) {
    const int32_t d = in.dim - 1 - static_cast<int32_t>(k);
    const int64_t before = pad[2 * k];
    const int64_t after = pad[2 * k + 1];
    if (!plausible_geometry(before) || !plausible_geometry(after)) {
      return Error::make(ErrorCode::kInvalidArgument, "%s: padding %lld, %lld is implausible", op,
                         static_cast<long long>(before), static_cast<long long>(after));
    }
    const int64_t n = in.sizes[d];
    const int64_t size = n + before + after;
    if (size < 0) {
      return Error::make(ErrorCode::kInvalidArgument, "%s: padding %lld, %lld leaves dim %d of size %lld negative", op,
                         static_cast<long long>(before), static_cast<long long>(after), static_cast<int>(d),
                         static_cast<long long>(n));
    }
    if (mode == PadMode::kReflect && (before >= n || after >= n)) {
      return Error::make(ErrorCode::kInvalidArgument, "%s: reflection padding %lld, %lld must be smaller than dim %d of size %lld",
                         op, static_cast<long long>(before), static_cast<long long>(after), static_cast<int>(d),
                         static_cast<long long>(n));
    }
    if (mode != PadMode::kConstant && n == 0 && size > 0) {
      return Error::make(ErrorCode::kInvalidArgument, "%s: cannot pad the empty dim %d", op, static_cast<int>(d));
    }
    p.before[d] = before;
    p.out_sizes[d] = size;
  }
  return Error();
}

Error check_pad_rank(const char* op, const Tensor& in, Span<const int64_t> pad, int32_t dims) {
  if (in.dim != dims + 1 && in.dim != dims + 2) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: input must have %d or %d dims, has %d", op, static_cast<int>(dims + 1),
                       static_cast<int>(dims + 2), static_cast<int>(in.dim));
  }
  if (pad.size() != static_cast<size_t>(2 * dims)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: padding must have %d values, has %zu", op, static_cast<int>(2 * dims),
                       pad.size());
  }
  return Error();
}

}  // namespace sb::kernels
