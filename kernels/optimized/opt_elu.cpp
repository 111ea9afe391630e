// aten::elu.out: the float fast path of kernels/portable/op_elu.cpp,
// x > 0 ? x * scale : alpha * scale * expm1(x * input_scale), with a
// vectorised expm1 that keeps its relative accuracy near 0 (where
// exp(z) - 1 would cancel); everything else goes to the portable kernel.
#include "optimized/util/binary_fast.h"
#include "optimized/util/vec_math.h"
#include "sb/kernel.h"
#include "util/elementwise.h"

namespace sb::kernels {
extern const KernelDef elu_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::elu.out";

// e^z - 1: Taylor to degree 8 for |z| < 0.35 (truncation below 3e-10
// relative), vexp(z) - 1 elsewhere (|result| > 0.29 there: no cancellation).
// -inf gives -1, +inf inf, NaN NaN.
inline VecF vexpm1(VecF z) {
  VecF p = splat(1.0f / 40320.0f);
  p = p * z + (1.0f / 5040.0f);
  p = p * z + (1.0f / 720.0f);
  p = p * z + (1.0f / 120.0f);
  p = p * z + (1.0f / 24.0f);
  p = p * z + (1.0f / 6.0f);
  p = p * z + 0.5f;
  p = p * z + 1.0f;
  const VecF small = p * z;
  const VecF large = vexp(z) - 1.0f;
  return vabs(z) < splat(0.35f) ? small : large;  // NaN takes `large`: NaN
}

Error opt_elu_out_impl(KernelContext& ctx, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[4]->as_tensor;
  if (!prepare_unary_f32(kOp, self, out)) return kernels::elu_out.fn(ctx, args);
  const double alpha = args[1]->scalar_as_double();
  const double scale = args[2]->scalar_as_double();
  const VecF pos = splat(static_cast<float>(scale));
  const VecF neg = splat(static_cast<float>(alpha * scale));
  const VecF in_scale = splat(static_cast<float>(args[3]->scalar_as_double()));
  map_unary_f32(self.data_as<float>(), out.data_as<float>(), out.numel(), [=](VecF x) {
    return x > splat(0.0f) ? x * pos : neg * vexpm1(x * in_scale);  // NaN takes the second: NaN
  });
  return Error();
}

}  // namespace

extern const KernelDef opt_elu_out{kOp, "Tsss|T", &opt_elu_out_impl, {}, kernels::kElementwiseLayout};

}  // namespace sb::optimized
