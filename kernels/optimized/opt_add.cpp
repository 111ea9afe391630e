// aten::add.out: the float fast path of kernels/portable/op_add.cpp; everything else
// (other dtypes, complex, bad shapes, broadcasts across non-default dim
// orders) goes to the portable kernel.
#include "optimized/util/binary_fast.h"
#include "sb/kernel.h"
#include "util/elementwise.h"
#include "util/promote.h"

namespace sb::kernels {
extern const KernelDef add_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::add.out";

Error opt_add_out_impl(KernelContext& ctx, Args args) {
  const Tensor& a = *args[0]->as_tensor;
  const Tensor& b = *args[1]->as_tensor;
  Tensor& out = *args[3]->as_tensor;
  // alpha as the portable kernel takes it for a Float result: an int or a
  // double that fits float (a bool alpha is refused there).
  float alpha = 0.0f;
  BinaryPlan plan;
  if (args[2]->tag == Tag::kBool || !kernels::extract_scalar<float>(*args[2], &alpha) ||
      !prepare_binary_f32(kOp, a, b, out, &plan)) {
    return kernels::add_out.fn(ctx, args);
  }
  float* z = out.data_as<float>();
  if (alpha == 1.0f) {
    map_binary_f32(plan, a.data_as<float>(), b.data_as<float>(), z, [](VecF x, VecF y) { return x + y; });
  } else {
    map_binary_f32(plan, a.data_as<float>(), b.data_as<float>(), z, [alpha](VecF x, VecF y) { return x + alpha * y; });
  }
  return Error();
}

}  // namespace

extern const KernelDef opt_add_out{kOp, "TTs|T", &opt_add_out_impl, {}, kernels::kElementwiseLayout};

}  // namespace sb::optimized
