// aten::_native_batch_norm_legit.out(Tensor input, Tensor? weight, Tensor? bias, Tensor(a!) running_mean,
//     Tensor(b!) running_var, bool training, float momentum, float eps, *, Tensor(d!) out,
//     Tensor(e!) save_mean, Tensor(f!) save_invstd)
//
// Inference only, as ExecuTorch's portable kernel: with training=False it is
// _native_batch_norm_legit_no_training, dispatched to. Training would update
// running_mean/var in place, which this runtime never writes (they may be
// constant data), so it is refused.
#include "sb/kernel.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::_native_batch_norm_legit.out";
constexpr const char* kCalls[] = {"aten::_native_batch_norm_legit_no_training.out"};

Error batch_norm_legit_out_impl(KernelContext& ctx, Args args) {
  if (args[5]->as_bool) {
    return Error::make(ErrorCode::kNotSupported, "%s: training mode is not supported (inference only)", kOp);
  }
  Value* no_training_args[] = {args[0], args[1], args[2], args[3], args[4], args[6], args[7], args[8], args[9], args[10]};
  return ctx.call("aten::_native_batch_norm_legit_no_training.out", no_training_args);
}

}  // namespace

extern const KernelDef _native_batch_norm_legit_out{kOp, "TttTTbdd|TTT", &batch_norm_legit_out_impl, kCalls,
                                                LayoutPolicy::kAny};  // no_training reads the dim orders

}  // namespace sb::kernels
