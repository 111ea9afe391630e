// aten::mul.out(Tensor self, Tensor other, *, Tensor(a!) out)
#include <type_traits>

#include "sb/kernel.h"
#include "util/binary.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::mul.out";

template <typename T>
T multiply(T x, T y) {
  if constexpr (std::is_same_v<T, bool>) {
    return x && y;
  } else if constexpr (std::is_integral_v<T>) {
    // Integer products wrap like ATen's; unsigned arithmetic keeps that defined.
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(x) * static_cast<U>(y));
  } else {
    return x * y;
  }
}

Error mul_out_impl(KernelContext& /*ctx*/, Args args) {
  return binary_op<kOp, kRealAndBool>(*args[0]->as_tensor, *args[1]->as_tensor, *args[2]->as_tensor,
                                      [](auto x, auto y) { return multiply(x, y); });
}

}  // namespace

extern const KernelDef mul_out{kOp, "TT|T", &mul_out_impl, {}};

}  // namespace sb::kernels
