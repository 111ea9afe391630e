// xnnpack::clamp.f32(Tensor input, float output_min, float output_max, *, Tensor(a!) out)
// xnnpack::clamp.f16 takes the same arguments on Half tensors (an fp16 program's), through the same code.
//
// XNNPACK's clamp (ReLU, ReLU6 and hardtanh lower to it): a copy, clamped in place (node.h).
#include <cstring>

#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

Error clamp_f32_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  Tensor& out = *args[3]->as_tensor;
  if (in.dtype != out.dtype || in.nbytes() != out.nbytes()) {
    return Error::make(ErrorCode::kInvalidArgument, "xnnpack::clamp: its input and output differ");
  }
  if (in.data != out.data) memcpy(out.data, in.data, in.nbytes());
  return clamp_output(args[3], *args[1], *args[2]);
}

}  // namespace

extern const KernelDef clamp_f32{"xnnpack::clamp.f32", "Tdd|T", &clamp_f32_impl, {}};
extern const KernelDef clamp_f16{"xnnpack::clamp.f16", "Tdd|T", &clamp_f32_impl, {}};

}  // namespace sb::xnnpack_nodes
