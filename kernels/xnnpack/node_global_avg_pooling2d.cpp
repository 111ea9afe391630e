// xnnpack::global_avg_pooling2d.f32(Tensor input, float output_min, float output_max, *, Tensor(a!) out)
// xnnpack::global_avg_pooling2d.f16: the same arguments on Half tensors, through the same code.
//
// XNNPACK's global average pooling of an NCHW image: aten::mean.out over H and W, kept as [N, C, 1, 1].
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

constexpr const char* kCalls[] = {"aten::mean.out", "aten::clamp.out"};

Error global_avg_pooling2d_f32_impl(KernelContext& ctx, Args args) {
  static const int64_t kSpatial[2] = {2, 3};
  Value dims = Value::from_int_list(Span<const int64_t>(kSpatial, 2));
  Value keepdim = Value::from_bool(true);
  Value dtype = Value::none();
  Value* const inputs[] = {args[0], &dims, &keepdim, &dtype};
  return call_then_clamp(ctx, "aten::mean.out", inputs, 4, args[3], *args[1], *args[2]);
}

}  // namespace

extern const KernelDef global_avg_pooling2d_f32{"xnnpack::global_avg_pooling2d.f32", "Tdd|T", &global_avg_pooling2d_f32_impl, kCalls};
extern const KernelDef global_avg_pooling2d_f16{"xnnpack::global_avg_pooling2d.f16", "Tdd|T", &global_avg_pooling2d_f32_impl, kCalls};

}  // namespace sb::xnnpack_nodes
