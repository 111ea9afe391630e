// aten::bitwise_not.out(Tensor self, *, Tensor(a!) out)
//
// Integers and bool only (bool: logical not).
#include <type_traits>

#include "sb/kernel.h"
#include "util/unary_ufunc.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::bitwise_not.out";
constexpr DtypeMask kTypes = kIntTypes | dtype_bit(ScalarType::kBool);

Error bitwise_not_out_impl(KernelContext& /*ctx*/, Args args) {
  return unary_same<kOp, kTypes>(*args[0]->as_tensor, *args[1]->as_tensor, [](auto x) {
    using T = decltype(x);
    if constexpr (std::is_same_v<T, bool>) {
      return !x;
    } else {
      return static_cast<T>(~x);
    }
  });
}

}  // namespace

extern const KernelDef bitwise_not_out{kOp, "T|T", &bitwise_not_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
