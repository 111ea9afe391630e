// xnnpack::exp.f32(Tensor input, *, Tensor(a!) out)
// xnnpack::exp.f16 takes the same arguments on Half tensors (an fp16 program's), through the same code.
//
// XNNPACK's element-wise exp: aten::exp.out.
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

constexpr const char* kCalls[] = {"aten::exp.out"};

Error exp_f32_impl(KernelContext& ctx, Args args) {
  return ctx.call("aten::exp.out", args);
}

}  // namespace

extern const KernelDef exp_f32{"xnnpack::exp.f32", "T|T", &exp_f32_impl, kCalls};
extern const KernelDef exp_f16{"xnnpack::exp.f16", "T|T", &exp_f32_impl, kCalls};

}  // namespace sb::xnnpack_nodes
