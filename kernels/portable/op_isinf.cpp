// aten::isinf.out(Tensor self, *, Tensor(a!) out) -- out is bool
#include <cmath>

#include "sb/kernel.h"
#include "util/unary_ufunc.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::isinf.out";

Error isinf_out_impl(KernelContext& /*ctx*/, Args args) {
  return unary_to_bool<kOp>(*args[0]->as_tensor, *args[1]->as_tensor, [](auto x) { return std::isinf(x); });
}

}  // namespace

extern const KernelDef isinf_out{kOp, "T|T", &isinf_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
