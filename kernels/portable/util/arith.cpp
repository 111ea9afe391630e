#include "util/arith.h"

namespace sb::kernels {

Error arith_detail::bool_operands_refused(const char* op) {
  return Error::make(ErrorCode::kInvalidArgument, "%s: bool operands are not supported", op);
}

Error integer_division_by_zero(const char* op) {
  return Error::make(ErrorCode::kInvalidArgument, "%s: integer division by zero", op);
}

}  // namespace sb::kernels
