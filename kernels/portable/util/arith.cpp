#include "util/arith.h"

namespace sb::kernels {

Error arith_detail::check_common(const char* op, uint32_t flags, ScalarType common, const Tensor& out) {
  if ((flags & kNoBool) != 0 && common == ScalarType::kBool) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: bool operands are not supported", op);
  }
  if ((flags & kAnyOut) != 0) return Error();
  if ((flags & kOutIsCommon) != 0) {
    if (out.dtype == common) return Error();
    return Error::make(ErrorCode::kInvalidArgument, "%s: out has dtype %s, expected the result's dtype %s", op,
                       scalar_type_name(out.dtype), scalar_type_name(common));
  }
  return check_can_cast(op, common, out);
}

Error resize_to_broadcast(const char* op, const Tensor& a, const Tensor& b, Tensor& out) {
  int64_t sizes[kMaxDims];
  int32_t rank = 0;
  Error err = broadcast_shape(op, a, b, sizes, &rank);
  if (!err.ok()) return err;
  return resize_output(op, out, sizes, rank);
}

Error integer_division_by_zero(const char* op) {
  return Error::make(ErrorCode::kInvalidArgument, "%s: integer division by zero", op);
}

}  // namespace sb::kernels
