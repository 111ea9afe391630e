// aten::prod.out(Tensor self, *, ScalarType? dtype=None, Tensor(a!) out) -- the product of every element
#include "sb/kernel.h"
#include "util/prod_fold.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::prod.out";

Error prod_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[2]->as_tensor;
  ReducePlan plan;
  Error err = plan_reduction(kOp, self, Span<const int64_t>(), false, &plan);
  if (!err.ok()) return err;
  if (!(err = resize_reduced(kOp, out, plan)).ok()) return err;
  return prod_fold<kOp>(self, plan, *args[1], out);
}

}  // namespace

extern const KernelDef prod_out{kOp, "Tn|T", &prod_out_impl, {}};

}  // namespace sb::kernels
