// aten::relu.out: the float fast path of kernels/portable/op_relu.cpp; everything else goes
// to the portable kernel.
#include "optimized/microkernels/clamp_f32.h"
#include "optimized/operators/binary_op.h"
#include "sb/kernel.h"
#include "util/elementwise.h"
#include "util/promote.h"

namespace sb::kernels {
extern const KernelDef relu_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::relu.out";

Error opt_relu_out_impl(KernelContext& ctx, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[1]->as_tensor;
  if (!prepare_unary_f32(kOp, self, out)) return kernels::relu_out.fn(ctx, args);
  // max(x, 0) as a clamp from below (NaN passes through, -0.0 stays): the
  // loop clamp and hardtanh share.
  const float* x = self.data_as<float>();
  float* y = out.data_as<float>();
  for_element_tiles(ctx.threads(), out.numel(),
                    [&](int64_t at, int64_t n) { clamp_f32(x + at, y + at, n, true, 0.0f, false, 0.0f); });
  return Error();
}

}  // namespace

extern const KernelDef opt_relu_out{kOp, "T|T", &opt_relu_out_impl, {}, kernels::kElementwiseLayout};

}  // namespace sb::optimized
