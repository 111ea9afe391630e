// aten::empty.out(SymInt[] size, *, MemoryFormat? memory_format=None, Tensor(a!) out)
//
// Only gives out its shape: the contents are unspecified, as in ATen.
#include "sb/kernel.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::empty.out";

Error empty_out_impl(KernelContext& /*ctx*/, Args args) {
  return resize_output_to_size(kOp, *args[2]->as_tensor, args[0]->as_int_list);
}

}  // namespace

extern const KernelDef empty_out{kOp, "In|T", &empty_out_impl, {}};

}  // namespace sb::kernels
