// aten::var.out(Tensor self, int[1]? dim, bool unbiased=True, bool keepdim=False, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/variance.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::var.out";

Error var_out_impl(KernelContext& /*ctx*/, Args args) {
  const double correction = args[2]->as_bool ? 1.0 : 0.0;
  return variance_fold<kOp>(*args[0]->as_tensor, *args[1], args[3]->as_bool, correction, *args[4]->as_tensor, nullptr);
}

}  // namespace

extern const KernelDef var_out{kOp, "TJbb|T", &var_out_impl, {}};

}  // namespace sb::kernels
