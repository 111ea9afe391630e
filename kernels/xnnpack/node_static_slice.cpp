// xnnpack::static_slice.f32(Tensor input, int[] offsets, *, Tensor(a!) out)
// xnnpack::static_slice.f16 takes the same arguments on Half tensors (an fp16 program's), through the same code.
//
// XNNPACK's slice: the box of `out`'s shape at `offsets` of `input` (both contiguous, same rank).
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

Error static_slice_f32_impl(KernelContext& /*ctx*/, Args args) { return copy_slice(args); }

}  // namespace

extern const KernelDef static_slice_f32{"xnnpack::static_slice.f32", "TI|T", &static_slice_f32_impl, {}};
extern const KernelDef static_slice_f16{"xnnpack::static_slice.f16", "TI|T", &static_slice_f32_impl, {}};

}  // namespace sb::xnnpack_nodes
