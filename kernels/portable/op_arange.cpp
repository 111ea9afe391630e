// aten::arange.out(Scalar end, *, Tensor(a!) out)
//
// Composite, as in ATen: arange.start_out from 0 to end with step 1.
#include "sb/kernel.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::arange.out";
constexpr const char* kCalls[] = {"aten::arange.start_out"};

Error arange_out_impl(KernelContext& ctx, Args args) {
  Value start = Value::from_int(0);
  Value step = Value::from_int(1);
  Value* const call[] = {&start, args[0], &step, args[1]};
  return ctx.call("aten::arange.start_out", call);
}

}  // namespace

extern const KernelDef arange_out{kOp, "s|T", &arange_out_impl, kCalls};

}  // namespace sb::kernels
