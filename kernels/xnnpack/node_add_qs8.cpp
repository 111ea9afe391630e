// xnnpack::add.qs8(Tensor input1, Tensor input2, float scale1, float scale2, int zero_point1, int zero_point2, int output_zero_point, int output_min, int output_max, *, Tensor(a!) out)
//
// XNNPACK's int8 add, broadcasting. scale1 and scale2 are each input's scale over the output's (as
// XNNPACK divides them, in float). XNNPACK adds in fixed point, not in float: both ratios become
// integer multipliers under one right shift, set so that the larger multiplier has 21 bits, with the
// zero points and the rounding folded into one bias; a float sum would round differently now and
// then. Ratios outside XNNPACK's range ([2^-10, 2^8)) take the float sum instead.
#include <cmath>
#include <cstring>

#include "node.h"
#include "quantized.h"

namespace sb::xnnpack_nodes {
namespace {

struct FixedPointAdd {
  int64_t bias, a_multiplier, b_multiplier;
  int32_t shift;
};

int32_t exponent_of(float v) {
  uint32_t bits;
  memcpy(&bits, &v, sizeof bits);
  return static_cast<int32_t>(bits >> 23) - 127;
}

// False when XNNPACK would not take the ratios.
bool fixed_point_add(float a_ratio, float b_ratio, int32_t a_zero_point, int32_t b_zero_point, FixedPointAdd* p) {
  const float abs_a = std::fabs(a_ratio), abs_b = std::fabs(b_ratio);
  const float largest = abs_a > abs_b ? abs_a : abs_b;
  if (!(abs_a >= 0x1.0p-10f && abs_b >= 0x1.0p-10f && largest < 0x1.0p+8f)) return false;
  p->shift = 20 - exponent_of(largest);  // in [13, 30]
  const auto multiplier = [&](float ratio, float magnitude) {
    const int64_t m = static_cast<int64_t>(std::nearbyint(std::ldexp(magnitude, p->shift)));
    return std::signbit(ratio) ? -m : m;
  };
  p->a_multiplier = multiplier(a_ratio, abs_a);
  p->b_multiplier = multiplier(b_ratio, abs_b);
  p->bias = (int64_t{1} << (p->shift - 1)) - p->a_multiplier * a_zero_point - p->b_multiplier * b_zero_point;
  return true;
}

Error add_qs8_impl(KernelContext& ctx, Args args) {
  const float s1 = static_cast<float>(args[2]->as_double), s2 = static_cast<float>(args[3]->as_double);
  const int32_t z1 = static_cast<int32_t>(args[4]->as_int), z2 = static_cast<int32_t>(args[5]->as_int);
  const int32_t zo = static_cast<int32_t>(args[6]->as_int), lo = static_cast<int32_t>(args[7]->as_int);
  const int32_t hi = static_cast<int32_t>(args[8]->as_int);
  const Tensor& a = *args[0]->as_tensor;
  const Tensor& b = *args[1]->as_tensor;
  Tensor& out = *args[9]->as_tensor;
  FixedPointAdd p;
  if (fixed_point_add(s1, s2, z1, z2, &p)) {
    return broadcast<int8_t, int8_t>(ctx.kernel().op, a, b, out, [&](int8_t x, int8_t y) {
      const int64_t sum = (p.bias + x * p.a_multiplier + y * p.b_multiplier) >> p.shift;  // arithmetic: floor
      const int64_t v = sum + zo;
      return static_cast<int8_t>(v < lo ? lo : v > hi ? hi : v);
    });
  }
  const float lo_bound = static_cast<float>(lo - zo), hi_bound = static_cast<float>(hi - zo);
  return broadcast<int8_t, int8_t>(ctx.kernel().op, a, b, out, [&](int8_t x, int8_t y) {
    float v = static_cast<float>(x - z1) * s1 + static_cast<float>(y - z2) * s2;
    v = v < lo_bound ? lo_bound : v > hi_bound ? hi_bound : v;
    return static_cast<int8_t>(qs8::round_to_int(v) + zo);
  });
}

}  // namespace

extern const KernelDef add_qs8{"xnnpack::add.qs8", "TTddiiiii|T", &add_qs8_impl, {}};

}  // namespace sb::xnnpack_nodes
