// aten::sym_size.int(Tensor self, int dim) -> SymInt
//
// A dynamic dim's size as the program computes with it.
#include "prim/util/scalar.h"
#include "sb/tensor.h"

namespace sb::prim {
namespace {

Error sym_size_impl(KernelContext& ctx, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const int64_t d = args[1]->as_int;  // an int: the loader checked the signature
  const int64_t rank = self.dim;
  if (d < -rank || d >= rank) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: dim %lld out of range for rank %d", ctx.kernel().op,
                       static_cast<long long>(d), static_cast<int>(self.dim));
  }
  returned(args, 2) = Value::from_int(self.sizes[d < 0 ? d + rank : d]);
  return Error();
}

}  // namespace

// Sizes do not depend on the layout: any dim order.
extern const KernelDef prim_sym_size_int{"aten::sym_size.int", "Ti>s", &sym_size_impl, {}, LayoutPolicy::kAny};

}  // namespace sb::prim
