// aten::index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor(a!)
//
// In place: self is a 'W' argument (the loader refuses a call that would
// write into constant data through it).
#include "sb/kernel.h"
#include "util/index_put.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::index_put_";

Error index_put__impl(KernelContext& /*ctx*/, Args args) {
  Tensor& self = *args[0]->as_tensor;
  return index_put<kOp>(self, args[1]->as_tensor_list, *args[2]->as_tensor, args[3]->as_bool, self);
}

}  // namespace

extern const KernelDef index_put_{kOp, "WOTb", &index_put__impl, {}};

}  // namespace sb::kernels
