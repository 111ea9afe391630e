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

bool scalar_fits(const Value& s, ScalarType t) {
  if (is_integer_type(t)) {
    if (s.tag == Tag::kDouble) return false;
    const int64_t v = s.scalar_as_int();
    switch (t) {
      case ScalarType::kByte: return v >= 0 && v <= 255;
      case ScalarType::kChar: return v >= -128 && v <= 127;
      case ScalarType::kShort: return v >= -32768 && v <= 32767;
      case ScalarType::kInt: return v >= INT32_MIN && v <= INT32_MAX;
      default: return true;
    }
  }
  if (is_floating_type(t) && s.tag == Tag::kDouble) {
    const double v = s.as_double;
    if (v - v != 0.0) return true;  // inf and NaN are representable
    const double limit = t == ScalarType::kHalf ? 65504.0
                         : t == ScalarType::kBFloat16 ? 3.3895313892515355e38
                         : t == ScalarType::kFloat ? 3.4028234663852886e38
                                                   : 1.7976931348623157e308;
    return v >= -limit && v <= limit;
  }
  return true;
}

Error check_can_cast(const char* op, ScalarType common, const Tensor& out) {
  if (can_cast(common, out.dtype)) return Error();
  return Error::make(ErrorCode::kInvalidArgument, "%s: the result (%s) cannot be stored in out's dtype %s", op,
                     scalar_type_name(common), scalar_type_name(out.dtype));
}

}  // namespace sb::kernels
