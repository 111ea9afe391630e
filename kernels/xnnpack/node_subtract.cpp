// xnnpack::subtract.f32(Tensor input1, Tensor input2, float output_min, float output_max, *, Tensor(a!) out)
// xnnpack::subtract.f16 takes the same arguments on Half tensors (an fp16 program's), computed in float.
//
// XNNPACK's broadcasting subtract, its clamp fused (node.h: binary_clamped).
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

struct Subtract {
  float operator()(float a, float b) const {
    return a - b;
  }
};

}  // namespace

extern const KernelDef subtract_f32{"xnnpack::subtract.f32", "TTdd|T", &binary_clamped<float, Subtract>, {}};
extern const KernelDef subtract_f16{"xnnpack::subtract.f16", "TTdd|T", &binary_clamped<Half, Subtract>, {}};

}  // namespace sb::xnnpack_nodes
