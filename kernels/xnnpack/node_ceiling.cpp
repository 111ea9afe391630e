// xnnpack::ceiling.f32(Tensor input, *, Tensor(a!) out)
// xnnpack::ceiling.f16 takes the same arguments on Half tensors (an fp16 program's), through the same code.
//
// XNNPACK's element-wise ceiling: aten::ceil.out.
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

constexpr const char* kCalls[] = {"aten::ceil.out"};

Error ceiling_f32_impl(KernelContext& ctx, Args args) {
  return ctx.call("aten::ceil.out", args);
}

}  // namespace

extern const KernelDef ceiling_f32{"xnnpack::ceiling.f32", "T|T", &ceiling_f32_impl, kCalls};
extern const KernelDef ceiling_f16{"xnnpack::ceiling.f16", "T|T", &ceiling_f32_impl, kCalls};

}  // namespace sb::xnnpack_nodes
