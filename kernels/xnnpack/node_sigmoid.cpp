// xnnpack::sigmoid.f32(Tensor input, *, Tensor(a!) out)
// xnnpack::sigmoid.f16 takes the same arguments on Half tensors (an fp16 program's), through the same code.
//
// XNNPACK's element-wise sigmoid: aten::sigmoid.out.
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

constexpr const char* kCalls[] = {"aten::sigmoid.out"};

Error sigmoid_f32_impl(KernelContext& ctx, Args args) {
  return ctx.call("aten::sigmoid.out", args);
}

}  // namespace

extern const KernelDef sigmoid_f32{"xnnpack::sigmoid.f32", "T|T", &sigmoid_f32_impl, kCalls};
extern const KernelDef sigmoid_f16{"xnnpack::sigmoid.f16", "T|T", &sigmoid_f32_impl, kCalls};

}  // namespace sb::xnnpack_nodes
