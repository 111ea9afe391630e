// aten::logit.out(Tensor self, float? eps=None, *, Tensor(a!) out)
//
// log(x / (1 - x)) with x first clamped to [eps, 1 - eps] when eps is given, as
// ExecuTorch's kernel does. Any real or bool input; out is float32 or float64
// (ExecuTorch's set), and the math runs in out's type.
#include <cmath>

#include "sb/kernel.h"
#include "util/elementwise.h"
#include "util/unary_ufunc.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::logit.out";
constexpr DtypeMask kOutTypes = dtype_bit(ScalarType::kFloat) | dtype_bit(ScalarType::kDouble);

Error logit_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  const Value& eps_arg = *args[1];
  Tensor& out = *args[2]->as_tensor;
  // The signature's optional scalar also admits a bool, which float? does not.
  if (eps_arg.tag == Tag::kBool) return Error::make(ErrorCode::kInvalidArgument, "%s: eps must be a float", kOp);
  const bool clamp = !eps_arg.is_none();
  const double eps = clamp ? eps_arg.scalar_as_double() : 0.0;
  Error err = resize_output_like(kOp, out, in);
  if (!err.ok()) return err;
  return switch_dtype<kOp, kRealHBBF16>(in.dtype, [&](auto in_zero) {
    using In = decltype(in_zero);
    return switch_dtype<kOp, kOutTypes>(out.dtype, [&](auto out_zero) {
      using Out = decltype(out_zero);
      const Out lo = static_cast<Out>(eps);
      const Out hi = static_cast<Out>(1.0 - eps);
      map_unary<In, Out>(in, out, [&](In v) {
        Out x = static_cast<Out>(v);
        if (clamp) x = x < lo ? lo : (x > hi ? hi : x);  // NaN stays NaN
        return std::log(x / (Out(1) - x));
      });
      return Error();
    });
  });
}

}  // namespace

extern const KernelDef logit_out{kOp, "TS|T", &logit_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
