// xnnpack::multiply.qs8(Tensor input1, Tensor input2, float scale1, float scale2, int zero_point1, int zero_point2, int output_zero_point, int output_min, int output_max, *, Tensor(a!) out)
//
// XNNPACK's int8 multiply, broadcasting: the product of (v - zero point)s times scale1 (the inputs'
// scales over the output's), requantized (quantized.h); scale2 is unused.
#include "node.h"
#include "quantized.h"

namespace sb::xnnpack_nodes {
namespace {

Error multiply_qs8_impl(KernelContext& ctx, Args args) {
  const float s = static_cast<float>(args[2]->as_double);
  const int32_t z1 = static_cast<int32_t>(args[4]->as_int), z2 = static_cast<int32_t>(args[5]->as_int);
  const int32_t zo = static_cast<int32_t>(args[6]->as_int), lo = static_cast<int32_t>(args[7]->as_int);
  const int32_t hi = static_cast<int32_t>(args[8]->as_int);
  return broadcast<int8_t, int8_t>(ctx.kernel().op, *args[0]->as_tensor, *args[1]->as_tensor, *args[9]->as_tensor,
                                   [&](int8_t a, int8_t b) {
                                     return static_cast<int8_t>(qs8::requantize((a - z1) * (b - z2), s, zo, lo, hi));
                                   });
}

}  // namespace

extern const KernelDef multiply_qs8{"xnnpack::multiply.qs8", "TTddiiiii|T", &multiply_qs8_impl, {}};

}  // namespace sb::xnnpack_nodes
