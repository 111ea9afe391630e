// xnnpack::negate.f32(Tensor input, *, Tensor(a!) out)
// xnnpack::negate.f16 takes the same arguments on Half tensors (an fp16 program's), through the same code.
//
// XNNPACK's element-wise negate: aten::neg.out.
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

constexpr const char* kCalls[] = {"aten::neg.out"};

Error negate_f32_impl(KernelContext& ctx, Args args) {
  return ctx.call("aten::neg.out", args);
}

}  // namespace

extern const KernelDef negate_f32{"xnnpack::negate.f32", "T|T", &negate_f32_impl, kCalls};
extern const KernelDef negate_f16{"xnnpack::negate.f16", "T|T", &negate_f32_impl, kCalls};

}  // namespace sb::xnnpack_nodes
