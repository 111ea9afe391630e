// xnnpack::copy.qs8(Tensor input, *, Tensor(a!) out)
//
// On int8 elements (input and output share their quantization), as XNNPACK's copy.
#include <cstring>

#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

Error copy_qs8_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  if (in.data != args[1]->as_tensor->data) memcpy(args[1]->as_tensor->data, in.data, in.nbytes());
  return Error();
}

}  // namespace

extern const KernelDef copy_qs8{"xnnpack::copy.qs8", "T|T", &copy_qs8_impl, {}};

}  // namespace sb::xnnpack_nodes
