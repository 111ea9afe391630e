// xnnpack::add.f32(Tensor input1, Tensor input2, float output_min, float output_max, *, Tensor(a!) out)
// xnnpack::add.f16 takes the same arguments on Half tensors (an fp16 program's), computed in float.
//
// XNNPACK's broadcasting add, its clamp fused (node.h: binary_clamped).
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

struct Add {
  float operator()(float a, float b) const {
    return a + b;
  }
};

}  // namespace

extern const KernelDef add_f32{"xnnpack::add.f32", "TTdd|T", &binary_clamped<float, Add>, {}};
extern const KernelDef add_f16{"xnnpack::add.f16", "TTdd|T", &binary_clamped<Half, Add>, {}};

}  // namespace sb::xnnpack_nodes
