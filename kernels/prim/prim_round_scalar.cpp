// executorch_prim::round.Scalar(Scalar a) -> Scalar
#include <cmath>

#include "prim/util/rounding.h"

namespace sb::prim {
namespace {

// Python's round(): halves go to the even neighbour.
double round_half_even(double v) {
  const double r = std::round(v);
  return (std::fabs(r - v) == 0.5 && std::fmod(r, 2.0) != 0.0) ? r - (r - v) * 2 : r;
}

}  // namespace

extern const KernelDef prim_round_Scalar{"executorch_prim::round.Scalar", "s>s", &rounding<&round_half_even>, {}};

}  // namespace sb::prim
