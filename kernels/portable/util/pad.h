// Padding (constant_pad_nd, reflection_pad{1,2,3}d, replication_pad{1,2,3}d):
// each output coordinate maps, dim by dim, to an input coordinate or, for
// constant padding, to the fill value.
#pragma once

#include <cstdint>

#include "sb/error.h"
#include "sb/span.h"
#include "sb/tensor.h"
#include "sb/value.h"
#include "util/dtype_switch.h"
#include "util/indexing.h"
#include "util/shape.h"

namespace sb::kernels {

enum class PadMode : uint8_t { kConstant, kReflect, kReplicate };

struct PadPlan {
  PadMode mode = PadMode::kConstant;
  int32_t rank = 0;
  int64_t in_sizes[kMaxDims] = {};
  int64_t in_strides[kMaxDims] = {};
  int64_t before[kMaxDims] = {};  // padding in front of each dim (negative crops)
  int64_t out_sizes[kMaxDims] = {};
};

// `pad` holds (before, after) pairs for the last pad.size() / 2 dims, last
// dim first (F.pad's order). Fails on an odd or too long list, an implausible
// amount, a negative output size, reflection padding not smaller than its
// dim, or padding an empty dim by replication.
Error plan_pad(const char* op, const Tensor& in, Span<const int64_t> pad, PadMode mode, PadPlan* plan);

// The reflection/replication ops' own checks: `dims` padded dims, `in` with
// dims + 1 or dims + 2 dims, 2 * dims padding amounts.
Error check_pad_rank(const char* op, const Tensor& in, Span<const int64_t> pad, int32_t dims);

// Input offset for input coordinate c along dim d, or -1 when c falls in
// constant padding.
inline int64_t pad_source(const PadPlan& p, int32_t d, int64_t c) {
  const int64_t n = p.in_sizes[d];
  if (c < 0 || c >= n) {
    switch (p.mode) {
      case PadMode::kConstant: return -1;
      case PadMode::kReflect: c = c < 0 ? -c : 2 * (n - 1) - c; break;
      case PadMode::kReplicate: c = c < 0 ? 0 : n - 1; break;
    }
  }
  return c * p.in_strides[d];
}

// y (out_sizes) = x padded; `fill` for constant padding.
template <typename T>
void pad_copy(const PadPlan& p, const T* x, T* y, T fill) {
  int64_t total = 1;
  for (int32_t d = 0; d < p.rank; ++d) total *= p.out_sizes[d];
  int64_t coord[kMaxDims] = {};
  for (int64_t i = 0; i < total; ++i) {
    int64_t offset = 0;
    for (int32_t d = 0; d < p.rank && offset >= 0; ++d) {
      const int64_t s = pad_source(p, d, coord[d] - p.before[d]);
      offset = s < 0 ? -1 : offset + s;
    }
    y[i] = offset < 0 ? fill : x[offset];
    for (int32_t d = p.rank - 1; d >= 0; --d) {
      if (++coord[d] < p.out_sizes[d]) break;
      coord[d] = 0;
    }
  }
}

// The padding kernels' shared body: `dims` > 0 checks the input rank as the
// reflection/replication ops do; `value` is the constant fill (nullptr: none).
template <const char* Op>
Error pad_op(const Tensor& in, Span<const int64_t> pad, PadMode mode, int32_t dims, const Value* value, Tensor& out) {
  Error err;
  if (dims > 0 && !(err = check_pad_rank(Op, in, pad, dims)).ok()) return err;
  PadPlan plan;
  if (!(err = plan_pad(Op, in, pad, mode, &plan)).ok()) return err;
  if (!(err = resize_output(Op, out, plan.out_sizes, plan.rank)).ok()) return err;
  if (!(err = check_dtype(Op, "self", in, out.dtype)).ok()) return err;
  return switch_dtype<Op, kRealHBBF16>(out.dtype, [&](auto zero) {
    using T = decltype(zero);
    T fill = zero;
    if (value != nullptr && !scalar_cast_fits(*value, &fill)) {
      return Error::make(ErrorCode::kInvalidArgument, "%s: value does not fit dtype %s", Op,
                         scalar_type_name(out.dtype));
    }
    pad_copy<T>(plan, in.data_as<const T>(), out.data_as<T>(), fill);
    return Error();
  });
}

}  // namespace sb::kernels
