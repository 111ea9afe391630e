// aten::_local_scalar_dense(Tensor self) -> Scalar
//
// A tensor's first element as a scalar (what .item() exports as): integer
// dtypes give an int, floating ones a double, bool a bool.
#include "prim/util/scalar.h"
#include "sb/tensor.h"

namespace sb::prim {
namespace {

Error local_scalar_dense_impl(KernelContext& ctx, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  if (self.numel() < 1) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: expected a tensor with at least 1 element", ctx.kernel().op);
  }
  Value& out = returned(args, 1);
  switch (self.dtype) {
    case ScalarType::kByte: out = Value::from_int(*self.data_as<uint8_t>()); break;
    case ScalarType::kChar: out = Value::from_int(*self.data_as<int8_t>()); break;
    case ScalarType::kShort: out = Value::from_int(*self.data_as<int16_t>()); break;
    case ScalarType::kInt: out = Value::from_int(*self.data_as<int32_t>()); break;
    case ScalarType::kLong: out = Value::from_int(*self.data_as<int64_t>()); break;
    case ScalarType::kFloat: out = Value::from_double(*self.data_as<float>()); break;
    case ScalarType::kDouble: out = Value::from_double(*self.data_as<double>()); break;
    case ScalarType::kBool: out = Value::from_bool(*self.data_as<uint8_t>() != 0); break;
    default:
      return Error::make(ErrorCode::kNotSupported, "%s: dtype %s is not supported", ctx.kernel().op,
                         scalar_type_name(self.dtype));
  }
  return Error();
}

}  // namespace

extern const KernelDef prim_local_scalar_dense{"aten::_local_scalar_dense", "T>s", &local_scalar_dense_impl, {}};

}  // namespace sb::prim
