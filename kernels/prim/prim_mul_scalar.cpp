// executorch_prim::mul.Scalar(Scalar a, Scalar b) -> Scalar
//
// Symbolic-size arithmetic: ints wrap, a double on either side gives a double (util/scalar.h).
#include "prim/util/scalar.h"

namespace sb::prim {

extern const KernelDef prim_mul_Scalar{"executorch_prim::mul.Scalar", "ss>s", &arith<Arith::kMul>, {}};

}  // namespace sb::prim
