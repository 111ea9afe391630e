// aten::full_like.out: the Float fast path of kernels/portable/op_full_like.cpp
// (the attention masks' fills): the value converted as util/fill.h converts
// it, stored a vector at a time; everything else goes to the portable kernel.
#include "optimized/simd/vec.h"
#include "sb/kernel.h"
#include "util/shape.h"

namespace sb::kernels {
extern const KernelDef full_like_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::full_like.out";

Error opt_full_like_out_impl(KernelContext& ctx, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Value& value = *args[1];
  Tensor& out = *args[3]->as_tensor;
  if (out.dtype != ScalarType::kFloat || !(same_shape(self, out) || kernels::resize_output_like(kOp, out, self).ok())) {
    return kernels::full_like_out.fn(ctx, args);
  }
  const float v = value.tag == Tag::kDouble ? static_cast<float>(value.as_double)
                                            : static_cast<float>(value.scalar_as_int());
  const VecF splat_v = splat(v);
  float* y = out.data_as<float>();
  const int64_t n = out.numel();
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) store(y + i, splat_v);
  if (i < n) store_tail(y + i, splat_v, n - i);
  return Error();
}

}  // namespace

extern const KernelDef opt_full_like_out{kOp, "Tsn|T", &opt_full_like_out_impl, {}};

}  // namespace sb::optimized
