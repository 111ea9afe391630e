// aten::elu.out: the float fast path of kernels/portable/op_elu.cpp,
// x > 0 ? x * scale : alpha * scale * expm1(x * input_scale), for
// input_scale >= 0 (then expm1's argument is never positive where it is
// used: vec_math's vexpm1_neg, accurate near 0 where e^z - 1 would cancel);
// everything else goes to the portable kernel.
#include "optimized/operators/binary_op.h"
#include "optimized/simd/vec_math.h"
#include "sb/kernel.h"
#include "util/elementwise.h"

namespace sb::kernels {
extern const KernelDef elu_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::elu.out";

Error opt_elu_out_impl(KernelContext& ctx, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[4]->as_tensor;
  const double input_scale = args[3]->scalar_as_double();
  if (!(input_scale >= 0.0) || !prepare_unary_f32(kOp, self, out)) return kernels::elu_out.fn(ctx, args);
  const double alpha = args[1]->scalar_as_double();
  const double scale = args[2]->scalar_as_double();
  const VecF pos = splat(static_cast<float>(scale));
  const VecF neg = splat(static_cast<float>(alpha * scale));
  const VecF in_scale = splat(static_cast<float>(input_scale));
  map_unary_f32(self.data_as<float>(), out.data_as<float>(), out.numel(), [=](VecF x) {
    // The lanes x > 0 take x * scale; their expm1 argument is clamped to 0 (NaN passes the clamp).
    const VecF z = x * in_scale;
    return x > splat(0.0f) ? x * pos : neg * vexpm1_neg(z > splat(0.0f) ? splat(0.0f) : z);
  });
  return Error();
}

}  // namespace

extern const KernelDef opt_elu_out{kOp, "Tsss|T", &opt_elu_out_impl, {}, kernels::kElementwiseLayout};

}  // namespace sb::optimized
