// optimized/microkernels/clamp_f32.h's shared clamp loop.
#include "optimized/microkernels/clamp_f32.h"

#include "optimized/simd/vec.h"

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
