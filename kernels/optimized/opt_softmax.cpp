// aten::_softmax.out: the float fast path of kernels/portable/op_softmax.cpp
// (any dim: contiguous rows for the last dim, kLanes columns at a time for a
// dim with inner stride); everything else goes to the portable kernel.
#include "optimized/operators/softmax_op.h"
#include "sb/kernel.h"

namespace sb::kernels {
extern const KernelDef _softmax_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::_softmax.out";

Error opt__softmax_out_impl(KernelContext& ctx, Args args) {
  SoftmaxShape shape;
  if (!prepare_softmax_f32(kOp, args, &shape)) return kernels::_softmax_out.fn(ctx, args);
  softmax_f32(args[0]->as_tensor->data_as<float>(), args[3]->as_tensor->data_as<float>(), shape, false, ctx.threads());
  return Error();
}

}  // namespace

extern const KernelDef opt__softmax_out{kOp, "Tib|T", &opt__softmax_out_impl, {}};

}  // namespace sb::optimized
