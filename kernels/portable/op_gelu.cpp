// aten::gelu.out(Tensor self, *, str approximate='none', Tensor(a!) out)
#include <cmath>
#include <cstring>

#include "sb/kernel.h"
#include "util/unary.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::gelu.out";
// M_SQRT1_2 and M_PI are POSIX, not C++: newlib (bare metal) leaves them out in strict C++17.
constexpr double kSqrt1_2 = 0.70710678118654752440;
constexpr double kPi = 3.14159265358979323846;

bool equals(Span<const char> s, const char* literal) {
  return s.size() == strlen(literal) && memcmp(s.data(), literal, s.size()) == 0;
}

Error gelu_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Span<const char> approximate = args[1]->as_string;
  const Tensor& out = *args[2]->as_tensor;
  if (equals(approximate, "none")) {
    return unary_op<kOp, kFloatHBF16>(self, out, [](auto x) {
      using T = decltype(x);
      return static_cast<T>(0.5 * x * (1.0 + std::erf(x * kSqrt1_2)));
    });
  }
  if (equals(approximate, "tanh")) {
    return unary_op<kOp, kFloatHBF16>(self, out, [](auto x) {
      using T = decltype(x);
      const double inner = std::sqrt(2.0 / kPi) * (x + 0.044715 * x * x * x);
      return static_cast<T>(0.5 * x * (1.0 + std::tanh(inner)));
    });
  }
  return Error::make(ErrorCode::kInvalidArgument, "%s: approximate must be 'none' or 'tanh'", kOp);
}

}  // namespace

extern const KernelDef gelu_out{kOp, "Tz|T", &gelu_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
