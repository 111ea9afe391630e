// executorch_prim::neg.Scalar(Scalar a) -> Scalar
#include "prim/util/scalar.h"

namespace sb::prim {
namespace {

Error neg_scalar_impl(KernelContext& ctx, Args args) {
  const Value& a = *args[0];
  if (a.tag == Tag::kInt) {
    returned(args, 1) = Value::from_int(neg_wrap(a.as_int));
  } else if (a.tag == Tag::kDouble) {
    returned(args, 1) = Value::from_double(-a.as_double);
  } else {
    return bad_type(ctx.kernel().op, a);
  }
  return Error();
}

}  // namespace

extern const KernelDef prim_neg_Scalar{"executorch_prim::neg.Scalar", "s>s", &neg_scalar_impl, {}};

}  // namespace sb::prim
