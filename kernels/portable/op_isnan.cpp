// aten::isnan.out(Tensor self, *, Tensor(a!) out) -- out is bool
#include <cmath>

#include "sb/kernel.h"
#include "util/unary_ufunc.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::isnan.out";

Error isnan_out_impl(KernelContext& /*ctx*/, Args args) {
  return unary_to_bool<kOp>(*args[0]->as_tensor, *args[1]->as_tensor, [](auto x) { return std::isnan(x); });
}

}  // namespace

extern const KernelDef isnan_out{kOp, "T|T", &isnan_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
