// aten::constant_pad_nd.out(Tensor self, SymInt[] pad, Scalar value=0, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/pad.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::constant_pad_nd.out";

Error constant_pad_nd_out_impl(KernelContext& /*ctx*/, Args args) {
  return pad_op<kOp>(*args[0]->as_tensor, args[1]->as_int_list, PadMode::kConstant, 0, args[2], *args[3]->as_tensor);
}

}  // namespace

extern const KernelDef constant_pad_nd_out{kOp, "TIs|T", &constant_pad_nd_out_impl, {}};

}  // namespace sb::kernels
