#include "prim/util/scalar.h"

namespace sb::prim {

Error bad_type(const char* op, const Value& a) {
  return Error::make(ErrorCode::kInvalidArgument, "%s: unsupported argument type %s", op, tag_name(a.tag));
}

Error bad_types(const char* op, const Value& a, const Value& b) {
  return Error::make(ErrorCode::kInvalidArgument, "%s: unsupported argument types %s and %s", op, tag_name(a.tag),
                     tag_name(b.tag));
}

Error zero_division(const char* op) {
  return Error::make(ErrorCode::kInvalidArgument, "%s: integer division by zero", op);
}

}  // namespace sb::prim
