// xnnpack::log.f32(Tensor input, *, Tensor(a!) out)
// xnnpack::log.f16 takes the same arguments on Half tensors (an fp16 program's), through the same code.
//
// XNNPACK's element-wise log: aten::log.out.
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

constexpr const char* kCalls[] = {"aten::log.out"};

Error log_f32_impl(KernelContext& ctx, Args args) {
  return ctx.call("aten::log.out", args);
}

}  // namespace

extern const KernelDef log_f32{"xnnpack::log.f32", "T|T", &log_f32_impl, kCalls};
extern const KernelDef log_f16{"xnnpack::log.f16", "T|T", &log_f32_impl, kCalls};

}  // namespace sb::xnnpack_nodes
