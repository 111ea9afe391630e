// executorch_prim::add.Scalar(Scalar a, Scalar b) -> Scalar
//
// Symbolic-size arithmetic: ints wrap, a double on either side gives a double (util/scalar.h).
#include "prim/util/scalar.h"

namespace sb::prim {

extern const KernelDef prim_add_Scalar{"executorch_prim::add.Scalar", "ss>s", &arith<Arith::kAdd>, {}};

}  // namespace sb::prim
