// aten::_log_softmax.out: the float fast path of
// kernels/portable/op_log_softmax.cpp, computed directly as
// x - max - log(sum(exp(x - max))) (ATen's formula) rather than as the log of
// a softmax; the KernelDef keeps portable's `calls`, which its fallback uses.
#include "optimized/operators/softmax_op.h"
#include "sb/kernel.h"

namespace sb::kernels {
extern const KernelDef _log_softmax_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::_log_softmax.out";
constexpr const char* kCalls[] = {"aten::_softmax.out", "aten::log.out"};

Error opt__log_softmax_out_impl(KernelContext& ctx, Args args) {
  SoftmaxShape shape;
  // The portable kernel's checks are _softmax.out's, under that op's name.
  if (!prepare_softmax_f32("aten::_softmax.out", args, &shape)) return kernels::_log_softmax_out.fn(ctx, args);
  softmax_f32(args[0]->as_tensor->data_as<float>(), args[3]->as_tensor->data_as<float>(), shape, true, ctx.threads());
  return Error();
}

}  // namespace

extern const KernelDef opt__log_softmax_out{kOp, "Tib|T", &opt__log_softmax_out_impl, kCalls};

}  // namespace sb::optimized
