// aten::index_put_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor(a!)
//
// In place. As for copy_, the signature has no out part: self is written
// and is what the program call returns; the loader checks the returned value
// is not constant, and the kernel refuses a call whose returned tensor is not
// self's memory.
#include "sb/kernel.h"
#include "util/index_put.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::index_put_";

Error index_put__impl(KernelContext& /*ctx*/, Args args) {
  Tensor& self = *args[0]->as_tensor;
  if (args.size() > 4) {
    const Value& returned = *args[4];
    if (!returned.is_tensor() || returned.as_tensor->data != self.data) {
      return Error::make(ErrorCode::kInvalidProgram, "%s: the call must return self", kOp);
    }
  }
  return index_put<kOp>(self, args[1]->as_tensor_list, *args[2]->as_tensor, args[3]->as_bool, self);
}

}  // namespace

extern const KernelDef index_put_{kOp, "TOTb", &index_put__impl, {}};

}  // namespace sb::kernels
