// util/clamp_fast.h's shared clamp loop.
#include "optimized/util/clamp_fast.h"

#include "optimized/util/binary_fast.h"
#include "optimized/util/vec.h"

namespace sb::optimized {

void clamp_f32(const float* x, float* y, int64_t n, bool has_lo, float lo, bool has_hi, float hi) {
  const VecF vlo = splat(has_lo ? lo : -__builtin_inff());
  const VecF vhi = splat(has_hi ? hi : __builtin_inff());
  map_unary_f32(x, y, n, [vlo, vhi](VecF v) {
    v = v < vlo ? vlo : v;
    return v > vhi ? vhi : v;
  });
}

}  // namespace sb::optimized
