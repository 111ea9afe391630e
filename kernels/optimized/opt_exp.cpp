// aten::exp.out: the float fast path of kernels/portable/op_exp.cpp; everything else goes
// to the portable kernel.
#include "optimized/microkernels/unary_f32.h"
#include "optimized/operators/binary_op.h"
#include "sb/kernel.h"
#include "util/elementwise.h"
#include "util/promote.h"

namespace sb::kernels {
extern const KernelDef exp_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::exp.out";

Error opt_exp_out_impl(KernelContext& ctx, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[1]->as_tensor;
  if (!prepare_unary_f32(kOp, self, out)) return kernels::exp_out.fn(ctx, args);
  const float* x = self.data_as<float>();
  float* y = out.data_as<float>();
  for_element_tiles(ctx.threads(), out.numel(), [&](int64_t at, int64_t n) { exp_f32(x + at, y + at, n); });
  return Error();
}

}  // namespace

extern const KernelDef opt_exp_out{kOp, "T|T", &opt_exp_out_impl, {}, kernels::kElementwiseLayout};

}  // namespace sb::optimized
