// xnnpack::global_avg_pooling2d.qs8(Tensor input, float multiplier, int input_zero_point, int output_zero_point, int output_min, int output_max, *, Tensor(a!) out)
//
// XNNPACK's int8 global average pooling of NCHW images: each plane's sum of (v - input zero point),
// times the multiplier (input scale over output scale and plane size), requantized.
#include "node.h"
#include "quantized.h"

namespace sb::xnnpack_nodes {
namespace {

Error global_avg_pooling2d_qs8_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  const float multiplier = static_cast<float>(args[1]->as_double);
  const int32_t zi = static_cast<int32_t>(args[2]->as_int), zo = static_cast<int32_t>(args[3]->as_int);
  const int32_t lo = static_cast<int32_t>(args[4]->as_int), hi = static_cast<int32_t>(args[5]->as_int);
  const int64_t planes = in.sizes[0] * in.sizes[1], n = in.sizes[2] * in.sizes[3];
  int8_t* y = args[6]->as_tensor->data_as<int8_t>();
  for (int64_t c = 0; c < planes; ++c) {
    const int8_t* x = in.data_as<int8_t>() + c * n;
    int32_t acc = 0;
    for (int64_t i = 0; i < n; ++i) acc += x[i] - zi;
    y[c] = static_cast<int8_t>(qs8::requantize(acc, multiplier, zo, lo, hi));
  }
  return Error();
}

}  // namespace

extern const KernelDef global_avg_pooling2d_qs8{"xnnpack::global_avg_pooling2d.qs8", "Tdiiii|T", &global_avg_pooling2d_qs8_impl, {}};

}  // namespace sb::xnnpack_nodes
