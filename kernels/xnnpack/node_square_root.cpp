// xnnpack::square_root.f32(Tensor input, *, Tensor(a!) out)
// xnnpack::square_root.f16 takes the same arguments on Half tensors (an fp16 program's), through the same code.
//
// XNNPACK's element-wise square_root: aten::sqrt.out.
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

constexpr const char* kCalls[] = {"aten::sqrt.out"};

Error square_root_f32_impl(KernelContext& ctx, Args args) {
  return ctx.call("aten::sqrt.out", args);
}

}  // namespace

extern const KernelDef square_root_f32{"xnnpack::square_root.f32", "T|T", &square_root_f32_impl, kCalls};
extern const KernelDef square_root_f16{"xnnpack::square_root.f16", "T|T", &square_root_f32_impl, kCalls};

}  // namespace sb::xnnpack_nodes
