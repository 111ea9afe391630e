// aten::reflection_pad2d.out(Tensor self, SymInt[4] padding, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/pad.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::reflection_pad2d.out";

Error reflection_pad2d_out_impl(KernelContext& /*ctx*/, Args args) {
  return pad_op<kOp>(*args[0]->as_tensor, args[1]->as_int_list, PadMode::kReflect, 2, nullptr, *args[2]->as_tensor);
}

}  // namespace

extern const KernelDef reflection_pad2d_out{kOp, "TI|T", &reflection_pad2d_out_impl, {}};

}  // namespace sb::kernels
