// aten::clamp.out: the float fast path of kernels/portable/op_clamp.cpp; everything else goes
// to the portable kernel.
#include "optimized/microkernels/clamp_f32.h"
#include "optimized/operators/binary_op.h"
#include "optimized/operators/clamp_bounds.h"
#include "sb/kernel.h"
#include "util/elementwise.h"
#include "util/promote.h"

namespace sb::kernels {
extern const KernelDef clamp_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::clamp.out";

Error opt_clamp_out_impl(KernelContext& ctx, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Value& min = *args[1];
  const Value& max = *args[2];
  Tensor& out = *args[3]->as_tensor;
  const bool has_min = !min.is_none();
  const bool has_max = !max.is_none();
  if (!(has_min || has_max) || (has_min && !plain_bound(min)) || (has_max && !plain_bound(max)) ||
      !prepare_unary_f32(kOp, self, out)) {
    return kernels::clamp_out.fn(ctx, args);
  }
  const float* x = self.data_as<float>();
  float* y = out.data_as<float>();
  const float lo = has_min ? kernels::scalar_to<float>(min) : 0.0f;
  const float hi = has_max ? kernels::scalar_to<float>(max) : 0.0f;
  for_element_tiles(ctx.threads(), out.numel(),
                    [&](int64_t at, int64_t n) { clamp_f32(x + at, y + at, n, has_min, lo, has_max, hi); });
  return Error();
}

}  // namespace

extern const KernelDef opt_clamp_out{kOp, "TSS|T", &opt_clamp_out_impl, {}, kernels::kElementwiseLayout};

}  // namespace sb::optimized
