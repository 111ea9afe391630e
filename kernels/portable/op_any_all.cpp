// aten::any.all_out(Tensor self, *, Tensor(a!) out) -- out is a 0-d Bool (or Byte)
#include "sb/kernel.h"
#include "util/any_fold.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::any.all_out";

Error any_all_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[1]->as_tensor;
  ReducePlan plan;
  Error err = plan_reduction(kOp, self, Span<const int64_t>(), false, &plan);
  if (!err.ok()) return err;
  if (!(err = resize_reduced(kOp, out, plan)).ok()) return err;
  return any_fold<kOp>(self, &plan, out);
}

}  // namespace

extern const KernelDef any_all_out{kOp, "T|T", &any_all_out_impl, {}};

}  // namespace sb::kernels
