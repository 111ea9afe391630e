// executorch_prim::ge.Scalar(Scalar a, Scalar b) -> bool
//
// A guard on symbolic sizes: two ints compare as ints, numbers as doubles, two bools as ints.
#include "prim/util/scalar.h"

namespace sb::prim {

extern const KernelDef prim_ge_Scalar{"executorch_prim::ge.Scalar", "ss>s", &cmp<Cmp::kGe>, {}};

}  // namespace sb::prim
