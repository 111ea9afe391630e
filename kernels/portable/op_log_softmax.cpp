// aten::_log_softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out)
//
// Composite: softmax into out, then log in place, through the dispatcher.
#include "sb/kernel.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::_log_softmax.out";
constexpr const char* kCalls[] = {"aten::_softmax.out", "aten::log.out"};

Error log_softmax_out_impl(KernelContext& ctx, Args args) {
  Value* softmax_args[] = {args[0], args[1], args[2], args[3]};
  Error err = ctx.call("aten::_softmax.out", softmax_args);
  if (!err.ok()) return err;
  Value* log_args[] = {args[3], args[3]};
  return ctx.call("aten::log.out", log_args);
}

}  // namespace

extern const KernelDef _log_softmax_out{kOp, "Tib|T", &log_softmax_out_impl, kCalls};

}  // namespace sb::kernels
