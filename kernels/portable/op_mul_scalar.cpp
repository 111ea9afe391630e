// aten::mul.Scalar_out(Tensor self, Scalar other, *, Tensor(a!) out)
#include <type_traits>

#include "sb/kernel.h"
#include "util/unary.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::mul.Scalar_out";

Error mul_scalar_out_impl(KernelContext& /*ctx*/, Args args) {
  const Value& other = *args[1];
  const Tensor& out = *args[2]->as_tensor;
  // An integer tensor times a floating scalar is a float in ATen, which an integer out cannot hold.
  if (out.dtype != ScalarType::kFloat && other.tag == Tag::kDouble) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: a floating scalar needs a float tensor", kOp);
  }
  const double other_f = other.scalar_as_double();
  const int64_t other_i = other.tag == Tag::kDouble ? 0 : other.scalar_as_int();
  return unary_op<kOp, kRealTypes>(*args[0]->as_tensor, out, [=](auto x) {
    using T = decltype(x);
    if constexpr (std::is_floating_point_v<T>) {
      return static_cast<T>(x * other_f);
    } else {
      // Integer products wrap like ATen's; unsigned arithmetic keeps that defined.
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(x) * static_cast<U>(other_i));
    }
  });
}

}  // namespace

extern const KernelDef mul_Scalar_out{kOp, "Ts|T", &mul_scalar_out_impl, {}};

}  // namespace sb::kernels
