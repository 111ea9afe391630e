// aten::fill.Scalar_out(Tensor self, Scalar value, *, Tensor(a!) out)
// aten::fill.Tensor_out(Tensor self, Tensor value, *, Tensor(a!) out)
//
// out takes self's shape and dtype, every element `value`. A value the dtype
// cannot hold is refused, as in ATen. The Tensor variant reads its 0-d value
// and dispatches to the Scalar one, as ATen's fill_(Tensor) does.
#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/fill.h"
#include "util/shape.h"
#include "util/unary_ufunc.h"

namespace sb::kernels {
namespace {

constexpr char kScalarOp[] = "aten::fill.Scalar_out";
constexpr char kTensorOp[] = "aten::fill.Tensor_out";
constexpr const char* kTensorCalls[] = {kScalarOp};

Error fill_scalar_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[2]->as_tensor;
  Error err = resize_output_like(kScalarOp, out, self);
  if (!err.ok()) return err;
  if (!(err = check_dtype(kScalarOp, "out", out, self.dtype)).ok()) return err;
  return fill<kScalarOp>(out, *args[1]);
}

Error fill_tensor_out_impl(KernelContext& ctx, Args args) {
  const Tensor& value = *args[1]->as_tensor;
  if (value.dim != 0) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: value must be a 0-d tensor, not %d-d", kTensorOp, static_cast<int>(value.dim));
  }
  Value scalar;
  Error err = switch_dtype<kTensorOp, kRealHBBF16>(value.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T v = *value.data_as<T>();
    if constexpr (std::is_same_v<T, bool>) {
      scalar = Value::from_bool(v);
    } else if constexpr (is_integer_v<T>) {
      scalar = Value::from_int(static_cast<int64_t>(v));
    } else {
      scalar = Value::from_double(static_cast<double>(v));
    }
    return Error();
  });
  if (!err.ok()) return err;
  Value* fill_args[] = {args[0], &scalar, args[2]};
  return ctx.call(kScalarOp, fill_args);
}

}  // namespace

extern const KernelDef fill_Scalar_out{kScalarOp, "Ts|T", &fill_scalar_out_impl, {}};
extern const KernelDef fill_Tensor_out{kTensorOp, "TT|T", &fill_tensor_out_impl, kTensorCalls};

}  // namespace sb::kernels
