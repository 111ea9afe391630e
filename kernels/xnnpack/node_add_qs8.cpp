// xnnpack::add.qs8(Tensor input1, Tensor input2, float scale1, float scale2, int zero_point1, int zero_point2, int output_zero_point, int output_min, int output_max, *, Tensor(a!) out)
//
// XNNPACK's int8 add, broadcasting: each input's (v - zero point) times its scale over the output's,
// summed, requantized (quantized.h).
#include "node.h"
#include "quantized.h"

namespace sb::xnnpack_nodes {
namespace {

Error add_qs8_impl(KernelContext& /*ctx*/, Args args) {
  const float s1 = static_cast<float>(args[2]->as_double), s2 = static_cast<float>(args[3]->as_double);
  const int32_t z1 = static_cast<int32_t>(args[4]->as_int), z2 = static_cast<int32_t>(args[5]->as_int);
  const int32_t zo = static_cast<int32_t>(args[6]->as_int), lo = static_cast<int32_t>(args[7]->as_int);
  const int32_t hi = static_cast<int32_t>(args[8]->as_int);
  const float lo_bound = static_cast<float>(lo - zo), hi_bound = static_cast<float>(hi - zo);
  qs8::broadcast(*args[0]->as_tensor, *args[1]->as_tensor, *args[9]->as_tensor, [&](int8_t a, int8_t b) {
    float v = static_cast<float>(a - z1) * s1 + static_cast<float>(b - z2) * s2;
    v = v < lo_bound ? lo_bound : v > hi_bound ? hi_bound : v;
    return static_cast<int8_t>(qs8::round_to_int(v) + zo);
  });
  return Error();
}

}  // namespace

extern const KernelDef add_qs8{"xnnpack::add.qs8", "TTddiiiii|T", &add_qs8_impl, {}};

}  // namespace sb::xnnpack_nodes
