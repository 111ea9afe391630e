// executorch_prim::le.Scalar(Scalar a, Scalar b) -> bool
//
// A guard on symbolic sizes: two ints compare as ints, numbers as doubles, two bools as ints.
#include "prim/util/scalar.h"

namespace sb::prim {

extern const KernelDef prim_le_Scalar{"executorch_prim::le.Scalar", "ss>s", &cmp<Cmp::kLe>, {}};

}  // namespace sb::prim
