// executorch_prim::sub.Scalar(Scalar a, Scalar b) -> Scalar
//
// Symbolic-size arithmetic: ints wrap, a double on either side gives a double (util/scalar.h).
#include "prim/util/scalar.h"

namespace sb::prim {

extern const KernelDef prim_sub_Scalar{"executorch_prim::sub.Scalar", "ss>s", &arith<Arith::kSub>, {}};

}  // namespace sb::prim
