// aten::mean.out, optimized: fp32 in and out, reducing the innermost dims
// (all of them, or e.g. (2, 3) of NCHW: global pooling), each output a
// vectorised sum of one contiguous run. Everything else (other dim sets,
// dtypes) goes to the portable kernel, which composes sum and div; the calls
// are declared the same so the op graph is the portable one's.
#include "optimized/util/pool_rows.h"
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
  if (self.dtype != ScalarType::kFloat || out.dtype != ScalarType::kFloat || self.dim < 1 ||
      (!args[3]->is_none() && args[3]->as_int != static_cast<int64_t>(ScalarType::kFloat))) {
    return kernels::mean_out.fn(ctx, args);
  }
  kernels::ReducePlan plan;
  Error err = kernels::plan_reduction(kOp, self, dims, args[2]->as_bool, &plan);
  if (!err.ok()) return err;
  // The reduced dims must be the innermost ones: with k distinct valid dims, all of them >= rank - k.
  const int64_t k = dims.empty() ? self.dim : static_cast<int64_t>(dims.size());
  for (int64_t d : dims) {
    if ((d < 0 ? d + self.dim : d) < self.dim - k) return kernels::mean_out.fn(ctx, args);
  }
  if (plan.count < 1) return kernels::mean_out.fn(ctx, args);
  if (!(err = kernels::resize_output(kOp, out, plan.out_sizes, plan.out_rank)).ok()) return err;

  const int64_t count = plan.count;
  const int64_t outer = self.numel() / count;
  const float* x = self.data_as<float>();
  float* y = out.data_as<float>();
  const float n = static_cast<float>(count);
  for (int64_t o = 0; o < outer; ++o) y[o] = sum_f32(x + o * count, count) / n;
  return Error();
}

}  // namespace

extern const KernelDef opt_mean_out{kOp, "TJbn|T", &mean_impl, kCalls};

}  // namespace sb::optimized
