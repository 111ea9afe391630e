// xnnpack::multiply.f32(Tensor input1, Tensor input2, float output_min, float output_max, *, Tensor(a!) out)
// xnnpack::multiply.f16 takes the same arguments on Half tensors (an fp16 program's), computed in float.
//
// XNNPACK's broadcasting multiply, its clamp fused (node.h: binary_clamped).
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

struct Multiply {
  float operator()(float a, float b) const {
    return a * b;
  }
};

}  // namespace

extern const KernelDef multiply_f32{"xnnpack::multiply.f32", "TTdd|T", &binary_clamped<float, Multiply>, {}};
extern const KernelDef multiply_f16{"xnnpack::multiply.f16", "TTdd|T", &binary_clamped<Half, Multiply>, {}};

}  // namespace sb::xnnpack_nodes
