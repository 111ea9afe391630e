// executorch_prim::trunc.Scalar(Scalar a) -> Scalar
#include <cmath>

#include "prim/util/rounding.h"

namespace sb::prim {
namespace {

double trunc_of(double v) { return std::trunc(v); }

}  // namespace

extern const KernelDef prim_trunc_Scalar{"executorch_prim::trunc.Scalar", "s>s", &rounding<&trunc_of>, {}};

}  // namespace sb::prim
