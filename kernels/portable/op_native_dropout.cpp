// aten::native_dropout.out(Tensor input, float p, bool? train, *, Tensor(a!) out0, Tensor(b!) out1)
//
// Training (train None or true) with p > 0: each element is kept with
// probability 1 - p (mask true) and scaled by 1 / (1 - p), as ATen does; the
// others are zero. Otherwise out is a copy of input and the mask all true.
// Values differ from run to run, as ExecuTorch's do.
#include <cstring>

#include "sb/kernel.h"
#include "util/copy.h"
#include "util/random.h"
#include "util/shape.h"
#include "util/unary_ufunc.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::native_dropout.out";

Error native_dropout_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& input = *args[0]->as_tensor;
  const double p = args[1]->tag == Tag::kDouble ? args[1]->as_double : static_cast<double>(args[1]->as_int);
  const Value& train_arg = *args[2];
  Tensor& out = *args[3]->as_tensor;
  Tensor& mask = *args[4]->as_tensor;
  // The signature's optional scalar also admits numbers, which bool? does not.
  if (!train_arg.is_none() && train_arg.tag != Tag::kBool) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: train must be a bool or None", kOp);
  }
  if (!(p >= 0.0 && p <= 1.0)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: dropout probability %g is not in [0, 1]", kOp, p);
  }
  Error err = resize_output_like(kOp, out, input);
  if (!err.ok()) return err;
  if (!(err = resize_output_like(kOp, mask, input)).ok()) return err;
  if (!(err = check_dtype(kOp, "out0", out, input.dtype)).ok()) return err;
  if (!(err = check_dtype(kOp, "out1", mask, ScalarType::kBool)).ok()) return err;
  bool* keep = mask.data_as<bool>();
  const int64_t n = input.numel();
  const bool train = train_arg.is_none() || train_arg.as_bool;
  if (!train || p == 0.0) {
    if (n > 0) memset(keep, 1, static_cast<size_t>(n));
    return copy_same_numel(kOp, input, out);
  }
  return switch_dtype<kOp, kFloatHBF16>(input.dtype, [&](auto zero) {
    using T = decltype(zero);
    using C = float_compute_t<T>;
    const C scale = p == 1.0 ? C(0) : static_cast<C>(1.0 / (1.0 - p));
    const T* x = input.data_as<T>();
    T* y = out.data_as<T>();
    for (int64_t i = 0; i < n; ++i) {
      keep[i] = random_uniform() >= p;
      y[i] = static_cast<T>(keep[i] ? static_cast<C>(x[i]) * scale : C(0));
    }
    return Error();
  });
}

}  // namespace

extern const KernelDef native_dropout_out{kOp, "TdS|TT", &native_dropout_out_impl, {}};

}  // namespace sb::kernels
