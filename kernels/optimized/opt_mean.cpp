// aten::mean.out, optimized: fp32 in and out, default dim order, the reduced
// dims one block in memory (optimized/microkernels/reduce_block.h: e.g. (2, 3) of NCHW, global
// pooling, or the last dims), each output the vectorised sum of its block over
// the count. Everything else (other dim sets, dtypes) goes to the portable
// kernel, which composes sum and div; the calls are declared the same so the op
// graph is the portable one's.
#include "optimized/operators/reduce_op.h"
#include "sb/kernel.h"
#include "util/reduce.h"
#include "util/shape.h"

namespace sb::kernels {
extern const KernelDef mean_out;
}

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::mean.out";
constexpr const char* kCalls[] = {"aten::sum.IntList_out", "aten::div.Scalar_out"};

Error mean_impl(KernelContext& ctx, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[4]->as_tensor;
  const Span<const int64_t> dims = args[1]->is_none() ? Span<const int64_t>() : args[1]->as_int_list;
  ReductionBlock block;
  if (self.dtype != ScalarType::kFloat || out.dtype != ScalarType::kFloat || self.dim < 1 ||
      (!args[3]->is_none() && args[3]->as_int != static_cast<int64_t>(ScalarType::kFloat)) ||
      !self.is_default_dim_order() || !reduction_block(self, dims, &block)) {
    return kernels::mean_out.fn(ctx, args);
  }
  kernels::ReducePlan plan;
  Error err = kernels::plan_reduction(kOp, self, dims, args[2]->as_bool, &plan);
  if (!err.ok()) return err;
  if (plan.count < 1 || (out.data == self.data && self.numel() > 1)) return kernels::mean_out.fn(ctx, args);
  if (!(err = kernels::resize_output(kOp, out, plan.out_sizes, plan.out_rank)).ok()) return err;
  sum_block_f32(self.data_as<float>(), out.data_as<float>(), block, static_cast<float>(plan.count), ctx.threads());
  return Error();
}

}  // namespace

extern const KernelDef opt_mean_out{kOp, "TJbn|T", &mean_impl, kCalls};

}  // namespace sb::optimized
