// xnnpack::static_reshape.f32(Tensor input, *, Tensor(a!) out)
// xnnpack::static_reshape.f16 takes the same arguments on Half tensors (an fp16 program's), through the same code.
//
// XNNPACK's reshape: the same elements in the same order (the plan gives both their shapes).
#include <cstring>

#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

Error static_reshape_f32_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  if (in.data != args[1]->as_tensor->data) memcpy(args[1]->as_tensor->data, in.data, in.nbytes());
  return Error();
}

}  // namespace

extern const KernelDef static_reshape_f32{"xnnpack::static_reshape.f32", "T|T", &static_reshape_f32_impl, {}};
extern const KernelDef static_reshape_f16{"xnnpack::static_reshape.f16", "T|T", &static_reshape_f32_impl, {}};

}  // namespace sb::xnnpack_nodes
