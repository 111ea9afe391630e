// aten::constant_pad_nd.out(Tensor self, SymInt[] pad, Scalar value=0, *, Tensor(a!) out)
//
// Fast path: float, padding without cropping. The portable kernel's plan
// (util/pad.h); out filled with the value where there is padding, then the
// input copied into its interior as rows (optimized/microkernels/copy_box.h). Other dtypes and
// negative padding are the portable kernel's.
#include "optimized/microkernels/copy_box.h"
#include "sb/kernel.h"
#include "util/indexing.h"
#include "util/pad.h"
#include "util/shape.h"

namespace sb::kernels {
extern const KernelDef constant_pad_nd_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::constant_pad_nd.out";

Error opt_constant_pad_nd_out_impl(KernelContext& ctx, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[3]->as_tensor;
  float fill = 0.0f;
  if (self.dtype != ScalarType::kFloat || out.dtype != ScalarType::kFloat || out.data == self.data ||
      !kernels::scalar_cast_fits(*args[2], &fill)) {
    return kernels::constant_pad_nd_out.fn(ctx, args);
  }
  kernels::PadPlan plan;
  Error err = kernels::plan_pad(kOp, self, args[1]->as_int_list, kernels::PadMode::kConstant, &plan);
  if (!err.ok()) return err;
  int64_t strides[kMaxDims];
  row_major_strides(plan.out_sizes, plan.rank, strides);
  int64_t offset = 0;
  bool padded = false;
  for (int32_t d = 0; d < plan.rank; ++d) {
    if (plan.before[d] < 0 || plan.out_sizes[d] < plan.in_sizes[d] + plan.before[d]) {
      return kernels::constant_pad_nd_out.fn(ctx, args);  // cropping
    }
    padded = padded || plan.out_sizes[d] != plan.in_sizes[d];
    offset += plan.before[d] * strides[d];
  }
  if (!(err = kernels::resize_output(kOp, out, plan.out_sizes, plan.rank)).ok()) return err;
  float* y = out.data_as<float>();
  if (padded) {
    const int64_t repeat[kMaxDims] = {};  // the one fill value broadcast over out
    copy_box(&fill, repeat, y, strides, plan.out_sizes, plan.rank, sizeof(float));
  }
  copy_box(self.data, plan.in_strides, y + offset, strides, plan.in_sizes, plan.rank, sizeof(float));
  return Error();
}

}  // namespace

extern const KernelDef opt_constant_pad_nd_out{kOp, "TIs|T", &opt_constant_pad_nd_out_impl, {}};

}  // namespace sb::optimized
