// aten::index_put.out(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/index_put.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::index_put.out";

Error index_put_out_impl(KernelContext& /*ctx*/, Args args) {
  return index_put<kOp>(*args[0]->as_tensor, args[1]->as_tensor_list, *args[2]->as_tensor, args[3]->as_bool,
                   *args[4]->as_tensor);
}

}  // namespace

extern const KernelDef index_put_out{kOp, "TOTb|T", &index_put_out_impl, {}};

}  // namespace sb::kernels
