// aten::sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out)
//
// Fast path: fp32 in and out, default dim order, the reduced dims one block in
// memory (optimized/microkernels/reduce_block.h). The portable kernel's reduction plan validates
// the dims and gives out's shape; everything else is the portable kernel's.
#include "optimized/operators/reduce_op.h"
#include "sb/kernel.h"
#include "util/reduce.h"
#include "util/shape.h"

namespace sb::kernels {
extern const KernelDef sum_IntList_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::sum.IntList_out";

Error opt_sum_out_impl(KernelContext& ctx, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Span<const int64_t> dims = args[1]->is_none() ? Span<const int64_t>() : args[1]->as_int_list;
  Tensor& out = *args[4]->as_tensor;
  const bool float_only = self.dtype == ScalarType::kFloat && out.dtype == ScalarType::kFloat &&
                          (args[3]->is_none() || args[3]->as_int == static_cast<int64_t>(ScalarType::kFloat));
  ReductionBlock block;
  if (!float_only || !self.is_default_dim_order() || !reduction_block(self, dims, &block)) {
    return kernels::sum_IntList_out.fn(ctx, args);
  }
  kernels::ReducePlan plan;
  Error err = kernels::plan_reduction(kOp, self, dims, args[2]->as_bool, &plan);
  if (!err.ok()) return err;
  if (!(err = kernels::resize_output(kOp, out, plan.out_sizes, plan.out_rank)).ok()) return err;
  if (out.data == self.data && self.numel() > 1) return kernels::sum_IntList_out.fn(ctx, args);
  sum_block_f32(self.data_as<const float>(), out.data_as<float>(), block, 1.0f, ctx.threads());
  return Error();
}

}  // namespace

extern const KernelDef opt_sum_IntList_out{kOp, "TJbn|T", &opt_sum_out_impl, {}};

}  // namespace sb::optimized
