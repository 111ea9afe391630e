// aten::sign.out(Tensor self, *, Tensor(a!) out)
#include <cmath>
#include <type_traits>

#include "sb/kernel.h"
#include "util/unary_ufunc.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::sign.out";

Error sign_out_impl(KernelContext& /*ctx*/, Args args) {
  return unary_same<kOp, kRealHBBF16>(*args[0]->as_tensor, *args[1]->as_tensor, [](auto x) {
    using T = decltype(x);
    if constexpr (std::is_same_v<T, bool>) {
      return x;
    } else if constexpr (is_integer_v<T>) {
      return static_cast<T>((x > T(0)) - (x < T(0)));
    } else {
      const float_compute_t<T> v = static_cast<float_compute_t<T>>(x);
      return std::isnan(v) ? x : static_cast<T>((v > 0) - (v < 0));  // NaN stays NaN, as ExecuTorch's does
    }
  });
}

}  // namespace

extern const KernelDef sign_out{kOp, "T|T", &sign_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
