// executorch_prim::lt.Scalar(Scalar a, Scalar b) -> bool
//
// A guard on symbolic sizes: two ints compare as ints, numbers as doubles, two bools as ints.
#include "prim/util/scalar.h"

namespace sb::prim {

extern const KernelDef prim_lt_Scalar{"executorch_prim::lt.Scalar", "ss>s", &cmp<Cmp::kLt>, {}};

}  // namespace sb::prim
