// xnnpack::leaky_relu.f32(Tensor input, float negative_slope, *, Tensor(a!) out)
// xnnpack::leaky_relu.f16 takes the same arguments on Half tensors (an fp16 program's), through the same code.
//
// XNNPACK's leaky ReLU: aten::leaky_relu.out.
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

constexpr const char* kCalls[] = {"aten::leaky_relu.out"};

Error leaky_relu_f32_impl(KernelContext& ctx, Args args) {
  return ctx.call("aten::leaky_relu.out", args);
}

}  // namespace

extern const KernelDef leaky_relu_f32{"xnnpack::leaky_relu.f32", "Td|T", &leaky_relu_f32_impl, kCalls};
extern const KernelDef leaky_relu_f16{"xnnpack::leaky_relu.f16", "Td|T", &leaky_relu_f32_impl, kCalls};

}  // namespace sb::xnnpack_nodes
