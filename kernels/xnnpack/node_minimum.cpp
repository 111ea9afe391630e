// xnnpack::minimum.f32(Tensor input1, Tensor input2, float output_min, float output_max, *, Tensor(a!) out)
// xnnpack::minimum.f16 takes the same arguments on Half tensors (an fp16 program's), computed in float.
//
// XNNPACK's broadcasting minimum, its clamp fused (node.h: binary_clamped).
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

struct Minimum {
  float operator()(float a, float b) const {
    // NaN wins, as in ATen's minimum.
    return a != a ? a : b != b ? b : b < a ? b : a;
  }
};

}  // namespace

extern const KernelDef minimum_f32{"xnnpack::minimum.f32", "TTdd|T", &binary_clamped<float, Minimum>, {}};
extern const KernelDef minimum_f16{"xnnpack::minimum.f16", "TTdd|T", &binary_clamped<Half, Minimum>, {}};

}  // namespace sb::xnnpack_nodes
