// xnnpack::div.f32(Tensor input1, Tensor input2, float output_min, float output_max, *, Tensor(a!) out)
// xnnpack::div.f16 takes the same arguments on Half tensors (an fp16 program's), computed in float.
//
// XNNPACK's broadcasting division, its clamp fused (node.h: binary_clamped).
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

struct Divide {
  float operator()(float a, float b) const {
    return a / b;
  }
};

}  // namespace

extern const KernelDef div_f32{"xnnpack::div.f32", "TTdd|T", &binary_clamped<float, Divide>, {}};
extern const KernelDef div_f16{"xnnpack::div.f16", "TTdd|T", &binary_clamped<Half, Divide>, {}};

}  // namespace sb::xnnpack_nodes
