// xnnpack::tanh.f32(Tensor input, *, Tensor(a!) out)
// xnnpack::tanh.f16 takes the same arguments on Half tensors (an fp16 program's), through the same code.
//
// XNNPACK's element-wise tanh: aten::tanh.out.
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

constexpr const char* kCalls[] = {"aten::tanh.out"};

Error tanh_f32_impl(KernelContext& ctx, Args args) {
  return ctx.call("aten::tanh.out", args);
}

}  // namespace

extern const KernelDef tanh_f32{"xnnpack::tanh.f32", "T|T", &tanh_f32_impl, kCalls};
extern const KernelDef tanh_f16{"xnnpack::tanh.f16", "T|T", &tanh_f32_impl, kCalls};

}  // namespace sb::xnnpack_nodes
