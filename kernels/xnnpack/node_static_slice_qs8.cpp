// xnnpack::static_slice.qs8(Tensor input, int[] offsets, *, Tensor(a!) out)
//
// XNNPACK's int8 slice (the plan checks the output keeps the input's quantization): the box of `out`'s
// shape at `offsets` of `input` (both contiguous, same rank).
#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

Error static_slice_qs8_impl(KernelContext& /*ctx*/, Args args) { return copy_slice(args); }

}  // namespace

extern const KernelDef static_slice_qs8{"xnnpack::static_slice.qs8", "TI|T", &static_slice_qs8_impl, {}};

}  // namespace sb::xnnpack_nodes
