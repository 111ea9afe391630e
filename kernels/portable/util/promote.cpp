#include "util/promote.h"

#include "util/shape.h"

namespace sb::kernels {

Error dtype_not_supported(const char* op, ScalarType t) {
  return Error::make(ErrorCode::kInvalidArgument, "%s: dtype %s is not supported by this op", op,
                     scalar_type_name(t));
}

ScalarType promote_with_scalar(ScalarType t, const Value& s) {
  if (s.tag == Tag::kDouble) return is_floating_type(t) ? t : ScalarType::kFloat;
  if (s.tag == Tag::kInt) return t == ScalarType::kBool ? ScalarType::kLong : t;
  return t;
}

Error check_can_cast(const char* op, ScalarType common, const Tensor& out) {
  if (can_cast(common, out.dtype)) return Error();
  return Error::make(ErrorCode::kInvalidArgument, "%s: the result (%s) cannot be stored in out's dtype %s", op,
                     scalar_type_name(common), scalar_type_name(out.dtype));
}

}  // namespace sb::kernels
