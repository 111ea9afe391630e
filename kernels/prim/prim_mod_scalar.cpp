// executorch_prim::mod.Scalar(SymInt a, SymInt b) -> SymInt
//
// ExecuTorch registers it for ints only, with mod.int's truncating semantics (util/scalar.h).
#include "prim/util/scalar.h"

namespace sb::prim {

extern const KernelDef prim_mod_Scalar{"executorch_prim::mod.Scalar", "ss>s", &int_divmod<true>, {}};

}  // namespace sb::prim
