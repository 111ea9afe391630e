// aten::reflection_pad3d.out(Tensor self, SymInt[6] padding, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/pad.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::reflection_pad3d.out";

Error reflection_pad3d_out_impl(KernelContext& /*ctx*/, Args args) {
  return pad_op<kOp>(*args[0]->as_tensor, args[1]->as_int_list, PadMode::kReflect, 3, nullptr, *args[2]->as_tensor);
}

}  // namespace

extern const KernelDef reflection_pad3d_out{kOp, "TI|T", &reflection_pad3d_out_impl, {}};

}  // namespace sb::kernels
