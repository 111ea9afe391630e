// xnnpack::gelu.f32(Tensor input, *, Tensor(a!) out)
// xnnpack::gelu.f16 takes the same arguments on Half tensors (an fp16 program's), through the same code.
//
// XNNPACK's exact (erf) GELU: aten::gelu.out with approximate='none'.
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

constexpr const char* kCalls[] = {"aten::gelu.out"};

Error gelu_f32_impl(KernelContext& ctx, Args args) {
  static constexpr char kNone[] = "none";
  Value approximate;
  approximate.tag = Tag::kString;
  approximate.as_string = Span<const char>(kNone, 4);
  Value* const call[] = {args[0], &approximate, args[1]};
  return ctx.call("aten::gelu.out", Args(call, 3));
}

}  // namespace

extern const KernelDef gelu_f32{"xnnpack::gelu.f32", "T|T", &gelu_f32_impl, kCalls};
extern const KernelDef gelu_f16{"xnnpack::gelu.f16", "T|T", &gelu_f32_impl, kCalls};

}  // namespace sb::xnnpack_nodes
