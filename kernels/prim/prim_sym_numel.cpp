// aten::sym_numel(Tensor self) -> SymInt
#include "prim/util/scalar.h"
#include "sb/tensor.h"

namespace sb::prim {
namespace {

Error sym_numel_impl(KernelContext& /*ctx*/, Args args) {
  returned(args, 1) = Value::from_int(args[0]->as_tensor->numel());
  return Error();
}

}  // namespace

// The element count does not depend on the layout: any dim order.
extern const KernelDef prim_sym_numel{"aten::sym_numel", "T>s", &sym_numel_impl, {}, LayoutPolicy::kAny};

}  // namespace sb::prim
