// aten::trunc.out(Tensor self, *, Tensor(a!) out)
#include <cmath>

#include "sb/kernel.h"
#include "util/unary_ufunc.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::trunc.out";

Error trunc_out_impl(KernelContext& /*ctx*/, Args args) {
  return unary_same<kOp, kRealHBF16>(*args[0]->as_tensor, *args[1]->as_tensor, [](auto x) {
    using T = decltype(x);
    if constexpr (is_integer_v<T>) {
      return x;  // integers are already whole
    } else {
      return static_cast<T>(std::trunc(static_cast<float_compute_t<T>>(x)));
    }
  });
}

}  // namespace

extern const KernelDef trunc_out{kOp, "T|T", &trunc_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
