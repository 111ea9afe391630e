// executorch_prim::mod.int(SymInt a, SymInt b) -> SymInt
//
// Truncating, as ExecuTorch's runtime computes it (util/scalar.h); a zero divisor is an error.
#include "prim/util/scalar.h"

namespace sb::prim {

extern const KernelDef prim_mod_int{"executorch_prim::mod.int", "ss>s", &int_divmod<true>, {}};

}  // namespace sb::prim
