// xnnpack::static_reshape.qs8(Tensor input, *, Tensor(a!) out)
//
// On int8 elements (input and output share their quantization), as XNNPACK's reshape: the same elements in the same order (the plan gives both their shapes).
#include <cstring>

#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

Error static_reshape_qs8_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  if (in.data != args[1]->as_tensor->data) memcpy(args[1]->as_tensor->data, in.data, in.nbytes());
  return Error();
}

}  // namespace

extern const KernelDef static_reshape_qs8{"xnnpack::static_reshape.qs8", "T|T", &static_reshape_qs8_impl, {}};

}  // namespace sb::xnnpack_nodes
