// xnnpack::clamp.qs8(Tensor input, int output_min, int output_max, *, Tensor(a!) out)
//
// XNNPACK's int8 clamp (input and output share their quantization): min(max(v, lo), hi).
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

Error clamp_qs8_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  const int8_t lo = static_cast<int8_t>(args[1]->as_int), hi = static_cast<int8_t>(args[2]->as_int);
  const int8_t* x = in.data_as<int8_t>();
  int8_t* y = args[3]->as_tensor->data_as<int8_t>();
  for (int64_t i = 0, n = in.numel(); i < n; ++i) y[i] = x[i] < lo ? lo : x[i] > hi ? hi : x[i];
  return Error();
}

}  // namespace

extern const KernelDef clamp_qs8{"xnnpack::clamp.qs8", "Tii|T", &clamp_qs8_impl, {}};

}  // namespace sb::xnnpack_nodes
