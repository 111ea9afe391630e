// aten::leaky_relu.out: the float fast path of kernels/portable/op_leaky_relu.cpp
// (x > 0 ? x : x * negative_slope); everything else goes to the portable kernel.
#include "optimized/operators/binary_op.h"
#include "optimized/simd/vec.h"
#include "sb/kernel.h"
#include "util/elementwise.h"

namespace sb::kernels {
extern const KernelDef leaky_relu_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::leaky_relu.out";

Error opt_leaky_relu_out_impl(KernelContext& ctx, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[2]->as_tensor;
  if (!prepare_unary_f32(kOp, self, out)) return kernels::leaky_relu_out.fn(ctx, args);
  const VecF slope = splat(static_cast<float>(args[1]->scalar_as_double()));
  map_unary_f32(self.data_as<float>(), out.data_as<float>(), out.numel(), [slope](VecF x) {
    return x > splat(0.0f) ? x : x * slope;  // NaN takes x * slope: NaN
  });
  return Error();
}

}  // namespace

extern const KernelDef opt_leaky_relu_out{kOp, "Ts|T", &opt_leaky_relu_out_impl, {}, kernels::kElementwiseLayout};

}  // namespace sb::optimized
