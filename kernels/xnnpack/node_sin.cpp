// xnnpack::sin.f32(Tensor input, *, Tensor(a!) out)
// xnnpack::sin.f16 takes the same arguments on Half tensors (an fp16 program's), through the same code.
//
// XNNPACK's element-wise sin: aten::sin.out.
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

constexpr const char* kCalls[] = {"aten::sin.out"};

Error sin_f32_impl(KernelContext& ctx, Args args) {
  return ctx.call("aten::sin.out", args);
}

}  // namespace

extern const KernelDef sin_f32{"xnnpack::sin.f32", "T|T", &sin_f32_impl, kCalls};
extern const KernelDef sin_f16{"xnnpack::sin.f16", "T|T", &sin_f32_impl, kCalls};

}  // namespace sb::xnnpack_nodes
