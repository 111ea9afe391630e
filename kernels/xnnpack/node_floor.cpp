// xnnpack::floor.f32(Tensor input, *, Tensor(a!) out)
// xnnpack::floor.f16 takes the same arguments on Half tensors (an fp16 program's), through the same code.
//
// XNNPACK's element-wise floor: aten::floor.out.
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

constexpr const char* kCalls[] = {"aten::floor.out"};

Error floor_f32_impl(KernelContext& ctx, Args args) {
  return ctx.call("aten::floor.out", args);
}

}  // namespace

extern const KernelDef floor_f32{"xnnpack::floor.f32", "T|T", &floor_f32_impl, kCalls};
extern const KernelDef floor_f16{"xnnpack::floor.f16", "T|T", &floor_f32_impl, kCalls};

}  // namespace sb::xnnpack_nodes
