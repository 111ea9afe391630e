// ceil/round/trunc.Scalar: a double rounded to an int. A result out of
// int64's range (or NaN) saturates as Value::scalar_as_int does, instead of
// being undefined.
#pragma once

#include "prim/util/scalar.h"

namespace sb::prim {

template <double (*kRound)(double)>
Error rounding(KernelContext& ctx, Args args) {
  const Value& a = *args[0];
  if (a.tag != Tag::kDouble) return bad_type(ctx.kernel().op, a);
  returned(args, 1) = Value::from_int(Value::from_double(kRound(a.as_double)).scalar_as_int());
  return Error();
}

}  // namespace sb::prim
