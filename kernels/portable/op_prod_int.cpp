// aten::prod.int_out(Tensor self, int dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/prod_fold.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::prod.int_out";

Error prod_int_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[4]->as_tensor;
  ReducePlan plan;
  Error err = plan_optional_dim(kOp, self, *args[1], args[2]->as_bool, &plan);
  if (!err.ok()) return err;
  if (!(err = resize_reduced(kOp, out, plan)).ok()) return err;
  return prod_fold<kOp>(self, plan, *args[3], out);
}

}  // namespace

extern const KernelDef prod_int_out{kOp, "Tibn|T", &prod_int_out_impl, {}};

}  // namespace sb::kernels
