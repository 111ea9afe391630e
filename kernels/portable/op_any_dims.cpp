// aten::any.dims_out(Tensor self, int[]? dim=None, bool keepdim=False, *, Tensor(a!) out)
//
// dim=None folds every dim; dim=[] folds none (each element's truth value), as in ATen.
#include "sb/kernel.h"
#include "util/any_fold.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::any.dims_out";

Error any_dims_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[3]->as_tensor;
  if (!args[1]->is_none() && args[1]->as_int_list.empty()) {
    Error err = resize_output_like(kOp, out, self);
    if (!err.ok()) return err;
    return any_fold<kOp>(self, nullptr, out);
  }
  ReducePlan plan;
  Error err = plan_optional_dims(kOp, self, *args[1], args[2]->as_bool, &plan);
  if (!err.ok()) return err;
  if (!(err = resize_reduced(kOp, out, plan)).ok()) return err;
  return any_fold<kOp>(self, &plan, out);
}

}  // namespace

extern const KernelDef any_dims_out{kOp, "TJb|T", &any_dims_out_impl, {}};

}  // namespace sb::kernels
