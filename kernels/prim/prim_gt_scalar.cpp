// executorch_prim::gt.Scalar(Scalar a, Scalar b) -> bool
//
// A guard on symbolic sizes: two ints compare as ints, numbers as doubles, two bools as ints.
#include "prim/util/scalar.h"

namespace sb::prim {

extern const KernelDef prim_gt_Scalar{"executorch_prim::gt.Scalar", "ss>s", &cmp<Cmp::kGt>, {}};

}  // namespace sb::prim
