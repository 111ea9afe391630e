// executorch_prim::ceil.Scalar(Scalar a) -> Scalar
#include <cmath>

#include "prim/util/rounding.h"

namespace sb::prim {
namespace {

double ceil_of(double v) { return std::ceil(v); }

}  // namespace

extern const KernelDef prim_ceil_Scalar{"executorch_prim::ceil.Scalar", "s>s", &rounding<&ceil_of>, {}};

}  // namespace sb::prim
