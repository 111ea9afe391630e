// aten::neg.out(Tensor self, *, Tensor(a!) out)
#include <type_traits>

#include "sb/kernel.h"
#include "util/unary_ufunc.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::neg.out";

Error neg_out_impl(KernelContext& /*ctx*/, Args args) {
  return unary_same<kOp, kRealHBF16>(*args[0]->as_tensor, *args[1]->as_tensor, [](auto x) {
    using T = decltype(x);
    if constexpr (is_integer_v<T>) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(U(0) - static_cast<U>(x));  // wraps: -INT_MIN == INT_MIN, as in ATen
    } else {
      return static_cast<T>(-static_cast<float_compute_t<T>>(x));
    }
  });
}

}  // namespace

extern const KernelDef neg_out{kOp, "T|T", &neg_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
