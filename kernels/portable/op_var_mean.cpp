// aten::var_mean.correction_out(Tensor self, int[1]? dim=None, *, Scalar? correction=None,
//     bool keepdim=False, Tensor(a!) out0, Tensor(b!) out1) -- out0 the variance, out1 the mean
#include "sb/kernel.h"
#include "util/variance.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::var_mean.correction_out";

Error var_mean_out_impl(KernelContext& /*ctx*/, Args args) {
  return variance_fold<kOp>(*args[0]->as_tensor, *args[1], args[3]->as_bool, correction_of(*args[2]),
                            *args[4]->as_tensor, args[5]->as_tensor);
}

}  // namespace

extern const KernelDef var_mean_correction_out{kOp, "TJSb|TT", &var_mean_out_impl, {}};

}  // namespace sb::kernels
