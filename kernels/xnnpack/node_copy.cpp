// xnnpack::copy.f32(Tensor input, *, Tensor(a!) out)
// xnnpack::copy.f16 takes the same arguments on Half tensors (an fp16 program's), through the same code.
//
// XNNPACK's copy.
#include <cstring>

#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

Error copy_f32_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  if (in.data != args[1]->as_tensor->data) memcpy(args[1]->as_tensor->data, in.data, in.nbytes());
  return Error();
}

}  // namespace

extern const KernelDef copy_f32{"xnnpack::copy.f32", "T|T", &copy_f32_impl, {}};
extern const KernelDef copy_f16{"xnnpack::copy.f16", "T|T", &copy_f32_impl, {}};

}  // namespace sb::xnnpack_nodes
