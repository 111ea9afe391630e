// aten::mean.out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out)
//
// Composite: sum into out, then divide in place by the number of elements
// folded into each output, through the dispatcher.
#include "sb/kernel.h"
#include "util/reduce.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::mean.out";
constexpr const char* kCalls[] = {"aten::sum.IntList_out", "aten::div.Scalar_out"};

Error mean_out_impl(KernelContext& ctx, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Span<const int64_t> dims = args[1]->is_none() ? Span<const int64_t>() : args[1]->as_int_list;
  ReducePlan plan;
  Error err = plan_reduction(kOp, self, dims, args[2]->as_bool, &plan);
  if (!err.ok()) return err;
  // A mean is floating: out's dtype (and dtype=, which must name it), and self's unless dtype= converts it.
  const ScalarType out_type = args[4]->as_tensor->dtype;
  if (!is_floating_type(out_type) || (args[3]->is_none() ? !is_floating_type(self.dtype)
                                                          : args[3]->as_int != static_cast<int64_t>(out_type))) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: needs a floating input and out (or dtype= naming out's)",
                       kOp);
  }

  Value* sum_args[] = {args[0], args[1], args[2], args[3], args[4]};
  if (!(err = ctx.call("aten::sum.IntList_out", sum_args)).ok()) return err;
  Value count = Value::from_int(plan.count);
  Value* div_args[] = {args[4], &count, args[4]};
  return ctx.call("aten::div.Scalar_out", div_args);
}

}  // namespace

extern const KernelDef mean_out{kOp, "TJbn|T", &mean_out_impl, kCalls};

}  // namespace sb::kernels
