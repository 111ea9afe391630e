// aten::hardtanh.out(Tensor self, Scalar min_val=-1, Scalar max_val=1, *, Tensor(a!) out)
//
// Composite: forwards to clamp through the dispatcher, as ATen does.
#include "sb/kernel.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::hardtanh.out";
constexpr const char* kCalls[] = {"aten::clamp.out"};

Error hardtanh_out_impl(KernelContext& ctx, Args args) {
  Value* clamp_args[] = {args[0], args[1], args[2], args[3]};
  return ctx.call("aten::clamp.out", clamp_args);
}

}  // namespace

extern const KernelDef hardtanh_out{kOp, "Tss|T", &hardtanh_out_impl, kCalls};

}  // namespace sb::kernels
