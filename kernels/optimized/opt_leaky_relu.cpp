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
  const float* x = self.data_as<float>();
  float* y = out.data_as<float>();
  for_element_tiles(ctx.threads(), out.numel(), [&](int64_t at, int64_t n) {
    map_unary_f32(x + at, y + at, n, [slope](VecF v) {
      return v > splat(0.0f) ? v : v * slope;  // NaN takes v * slope: NaN
    });
  });
  return Error();
}

}  // namespace

extern const KernelDef opt_leaky_relu_out{kOp, "Ts|T", &opt_leaky_relu_out_impl, {}, kernels::kElementwiseLayout};

}  // namespace sb::optimized
