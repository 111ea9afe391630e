// aten::mul.out: the float fast path of kernels/portable/op_mul.cpp; everything else
// (other dtypes, complex, bad shapes, broadcasts across non-default dim
// orders) goes to the portable kernel.
#include "optimized/util/binary_fast.h"
#include "sb/kernel.h"
#include "util/elementwise.h"
#include "util/promote.h"

namespace sb::kernels {
extern const KernelDef mul_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::mul.out";

Error opt_mul_out_impl(KernelContext& ctx, Args args) {
  const Tensor& a = *args[0]->as_tensor;
  const Tensor& b = *args[1]->as_tensor;
  Tensor& out = *args[2]->as_tensor;
  BinaryPlan plan;
  if (!prepare_binary_f32(kOp, a, b, out, &plan)) return kernels::mul_out.fn(ctx, args);
  map_binary_f32(plan, a.data_as<float>(), b.data_as<float>(), out.data_as<float>(),
                 [](VecF x, VecF y) { return x * y; });
  return Error();
}

}  // namespace

extern const KernelDef opt_mul_out{kOp, "TT|T", &opt_mul_out_impl, {}, kernels::kElementwiseLayout};

}  // namespace sb::optimized
