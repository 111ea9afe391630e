// xnnpack::avg_pooling2d.f32(Tensor input, int[] kernel_size, int[] stride, int[] padding, float output_min, float output_max, *, Tensor(a!) out)
// xnnpack::avg_pooling2d.f16 takes the same arguments on Half tensors (an fp16 program's), through the same code.
//
// XNNPACK's average pooling (padding excluded from the average, as XNNPACK counts it) of an NCHW
// image: aten::avg_pool2d.out, then the node's clamp.
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

constexpr const char* kCalls[] = {"aten::avg_pool2d.out"};

Error avg_pooling2d_f32_impl(KernelContext& ctx, Args args) {
  Value ceil_mode = Value::from_bool(false);
  Value count_include_pad = Value::from_bool(false);
  Value divisor = Value::none();
  Value* const inputs[] = {args[0], args[1], args[2], args[3], &ceil_mode, &count_include_pad, &divisor};
  return call_then_clamp(ctx, "aten::avg_pool2d.out", inputs, 7, args[6], *args[4], *args[5]);
}

}  // namespace

extern const KernelDef avg_pooling2d_f32{"xnnpack::avg_pooling2d.f32", "TIIIdd|T", &avg_pooling2d_f32_impl, kCalls};
extern const KernelDef avg_pooling2d_f16{"xnnpack::avg_pooling2d.f16", "TIIIdd|T", &avg_pooling2d_f32_impl, kCalls};

}  // namespace sb::xnnpack_nodes
