// xnnpack::cos.f32(Tensor input, *, Tensor(a!) out)
// xnnpack::cos.f16 takes the same arguments on Half tensors (an fp16 program's), through the same code.
//
// XNNPACK's element-wise cos: aten::cos.out.
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

constexpr const char* kCalls[] = {"aten::cos.out"};

Error cos_f32_impl(KernelContext& ctx, Args args) {
  return ctx.call("aten::cos.out", args);
}

}  // namespace

extern const KernelDef cos_f32{"xnnpack::cos.f32", "T|T", &cos_f32_impl, kCalls};
extern const KernelDef cos_f16{"xnnpack::cos.f16", "T|T", &cos_f32_impl, kCalls};

}  // namespace sb::xnnpack_nodes
