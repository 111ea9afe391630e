// aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out)
#include <type_traits>

#include "sb/kernel.h"
#include "util/binary.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::add.out";

Error add_out_impl(KernelContext& /*ctx*/, Args args) {
  const Value& alpha = *args[2];
  const Tensor& out = *args[3]->as_tensor;
  // ATen refuses a floating alpha for integer tensors (its result type could not be stored).
  if (out.dtype != ScalarType::kFloat && alpha.tag == Tag::kDouble) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: alpha must be an integer for integer tensors", kOp);
  }
  const double alpha_f = alpha.scalar_as_double();
  const int64_t alpha_i = alpha.tag == Tag::kDouble ? 0 : alpha.scalar_as_int();
  return binary_op<kOp, kRealTypes>(*args[0]->as_tensor, *args[1]->as_tensor, out, [=](auto x, auto y) {
    using T = decltype(x);
    if constexpr (std::is_floating_point_v<T>) {
      return static_cast<T>(x + alpha_f * y);
    } else {
      // Integer tensors wrap like ATen's; unsigned arithmetic keeps that defined.
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(x) + static_cast<U>(alpha_i) * static_cast<U>(y));
    }
  });
}

}  // namespace

extern const KernelDef add_out{kOp, "TTs|T", &add_out_impl, {}};

}  // namespace sb::kernels
