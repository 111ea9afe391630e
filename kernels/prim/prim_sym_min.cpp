// executorch_prim::sym_min.Scalar(SymInt a, SymInt b) -> SymInt
#include "prim/util/scalar.h"

namespace sb::prim {
namespace {

Error sym_min_impl(KernelContext& ctx, Args args) {
  const Value& a = *args[0];
  const Value& b = *args[1];
  if (a.tag != Tag::kInt || b.tag != Tag::kInt) return bad_types(ctx.kernel().op, a, b);
  returned(args, 2) = Value::from_int(a.as_int <= b.as_int ? a.as_int : b.as_int);
  return Error();
}

}  // namespace

extern const KernelDef prim_sym_min_Scalar{"executorch_prim::sym_min.Scalar", "ss>s", &sym_min_impl, {}};

}  // namespace sb::prim
