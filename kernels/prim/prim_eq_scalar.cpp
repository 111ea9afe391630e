// executorch_prim::eq.Scalar(Scalar a, Scalar b) -> bool
//
// A guard on symbolic sizes: two ints compare as ints, numbers as doubles, two bools as ints.
#include "prim/util/scalar.h"

namespace sb::prim {

extern const KernelDef prim_eq_Scalar{"executorch_prim::eq.Scalar", "ss>s", &cmp<Cmp::kEq>, {}};

}  // namespace sb::prim
