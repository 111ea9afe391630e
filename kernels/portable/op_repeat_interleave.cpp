// aten::repeat_interleave.Tensor_out(Tensor repeats, *, SymInt? output_size=None, Tensor(a!) out)
//
// out holds index i repeats[i] times, in repeats' dtype (Int or Long, as in
// ExecuTorch); output_size, when given, must equal the sum of repeats.
#include <cstdint>

#include "sb/checked.h"
#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::repeat_interleave.Tensor_out";

Error repeat_interleave_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& repeats = *args[0]->as_tensor;
  Tensor& out = *args[2]->as_tensor;
  if (repeats.dim != 1) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: repeats must be 1-D, has %d dims", kOp, static_cast<int>(repeats.dim));
  }
  Error err = check_dtype(kOp, "out", out, repeats.dtype);
  if (!err.ok()) return err;
  return switch_dtype<kOp, kIntType | kLongType>(repeats.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* r = repeats.data_as<T>();
    const int64_t n = repeats.numel();
    uint64_t total = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (r[i] < 0) return Error::make(ErrorCode::kInvalidArgument, "%s: repeats cannot be negative", kOp);
      total = sat_add(total, static_cast<uint64_t>(r[i]));
    }
    if (total > kMaxElements) return Error::make(ErrorCode::kInvalidArgument, "%s: out would be too large", kOp);
    const int64_t length = static_cast<int64_t>(total);
    if (!args[1]->is_none() && args[1]->as_int != length) {
      return Error::make(ErrorCode::kInvalidArgument, "%s: output_size %lld but repeats sum to %lld", kOp,
                         static_cast<long long>(args[1]->as_int), static_cast<long long>(length));
    }
    Error resized = resize_output(kOp, out, &length, 1);
    if (!resized.ok()) return resized;
    T* y = out.data_as<T>();
    int64_t at = 0;
    for (int64_t i = 0; i < n; ++i) {
      for (T k = 0; k < r[i]; ++k) y[at++] = static_cast<T>(i);
    }
    return Error();
  });
}

}  // namespace

extern const KernelDef repeat_interleave_Tensor_out{kOp, "Tn|T", &repeat_interleave_out_impl, {}};

}  // namespace sb::kernels
