// my_ops::fancy_gelu.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)
//
// The sigmoid approximation of GELU, x * sigmoid(1.702 x), composed from portable ops through the
// dispatcher: out = x * 1.702 (aten::mul.Scalar_out), out = sigmoid(out) in place (aten::sigmoid.out),
// out = x * out (aten::mul.out). Those kernels check shapes and dtypes and resize `out`; this one only
// refuses what they would accept but the op does not (non-floating tensors, `out` sharing `x`'s memory).
#include "sb/kernel.h"
#include "sb/scalar_type.h"
#include "sb/tensor.h"

namespace my_ops::kernels {
namespace {

constexpr char kOp[] = "my_ops::fancy_gelu.out";
constexpr const char* kCalls[] = {"aten::mul.Scalar_out", "aten::sigmoid.out", "aten::mul.out"};
constexpr double kSlope = 1.702;

sb::Error fancy_gelu_out_impl(sb::KernelContext& ctx, sb::Args args) {
  const sb::Tensor& x = *args[0]->as_tensor;
  const sb::Tensor& out = *args[1]->as_tensor;
  if (!sb::is_floating_type(x.dtype) || out.dtype != x.dtype) {
    return sb::Error::make(sb::ErrorCode::kInvalidArgument, "%s: expected floating tensors of one dtype", kOp);
  }
  if (x.data != nullptr && x.data == out.data) {
    return sb::Error::make(sb::ErrorCode::kInvalidArgument, "%s: out must not share memory with x", kOp);
  }
  sb::Value slope = sb::Value::from_double(kSlope);
  sb::Value* scale_args[] = {args[0], &slope, args[1]};
  sb::Error err = ctx.call("aten::mul.Scalar_out", scale_args);
  if (!err.ok()) return err;
  sb::Value* sigmoid_args[] = {args[1], args[1]};
  if (!(err = ctx.call("aten::sigmoid.out", sigmoid_args)).ok()) return err;
  sb::Value* product_args[] = {args[0], args[1], args[1]};
  return ctx.call("aten::mul.out", product_args);
}

}  // namespace

extern const sb::KernelDef fancy_gelu_out{kOp, "T|T", &fancy_gelu_out_impl, kCalls};

}  // namespace my_ops::kernels
