// executorch_prim::floordiv.int(int a, int b) -> int
//
// Truncating, as ExecuTorch's runtime computes it (util/scalar.h); dividing by zero is an error.
#include "prim/util/scalar.h"

namespace sb::prim {

extern const KernelDef prim_floordiv_int{"executorch_prim::floordiv.int", "ss>s", &int_divmod<false>, {}};

}  // namespace sb::prim
