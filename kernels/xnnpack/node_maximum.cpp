// xnnpack::maximum.f32(Tensor input1, Tensor input2, float output_min, float output_max, *, Tensor(a!) out)
// xnnpack::maximum.f16 takes the same arguments on Half tensors (an fp16 program's), computed in float.
//
// XNNPACK's broadcasting maximum, its clamp fused (node.h: binary_clamped).
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

struct Maximum {
  float operator()(float a, float b) const {
    // NaN wins, as in ATen's maximum.
    return a != a ? a : b != b ? b : a < b ? b : a;
  }
};

}  // namespace

extern const KernelDef maximum_f32{"xnnpack::maximum.f32", "TTdd|T", &binary_clamped<float, Maximum>, {}};
extern const KernelDef maximum_f16{"xnnpack::maximum.f16", "TTdd|T", &binary_clamped<Half, Maximum>, {}};

}  // namespace sb::xnnpack_nodes
