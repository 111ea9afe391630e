// xnnpack::abs.f32(Tensor input, *, Tensor(a!) out)
// xnnpack::abs.f16 takes the same arguments on Half tensors (an fp16 program's), through the same code.
//
// XNNPACK's element-wise abs: aten::abs.out.
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

constexpr const char* kCalls[] = {"aten::abs.out"};

Error abs_f32_impl(KernelContext& ctx, Args args) {
  return ctx.call("aten::abs.out", args);
}

}  // namespace

extern const KernelDef abs_f32{"xnnpack::abs.f32", "T|T", &abs_f32_impl, kCalls};
extern const KernelDef abs_f16{"xnnpack::abs.f16", "T|T", &abs_f32_impl, kCalls};

}  // namespace sb::xnnpack_nodes
