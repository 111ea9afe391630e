// aten::permute_copy.out(Tensor self, int[] dims, *, Tensor(a!) out)
//
// A strided copy (optimized/microkernels/copy_box.h) validated as the portable kernel does: a
// swap of the two innermost dims (linear layers' weight permutes, attention's
// key transposes, NCHW <-> NHWC) moves 8x8 blocks, any other permutation
// (attention's head split [0, 2, 1, 3]) contiguous rows. A permutation it
// refuses goes to the portable kernel for its message.
#include "optimized/microkernels/copy_box.h"
#include "sb/kernel.h"
#include "sb/tensor.h"

namespace sb::kernels {
extern const KernelDef permute_copy_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

// Out's dim i steps through self as self's dim dims[i] does.
Error opt_permute_copy_out_impl(KernelContext& ctx, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Span<const int64_t> dims = args[1]->as_int_list;
  Tensor& out = *args[2]->as_tensor;
  if (static_cast<int32_t>(dims.size()) != self.dim || out.dtype != self.dtype) {
    return kernels::permute_copy_out.fn(ctx, args);
  }
  int64_t strides[kMaxDims];
  row_major_strides(self.sizes, self.dim, strides);
  int64_t sizes[kMaxDims];
  int64_t from[kMaxDims];
  uint32_t seen = 0;
  for (int32_t i = 0; i < self.dim; ++i) {
    const int64_t d = dims[i] < 0 ? dims[i] + self.dim : dims[i];
    if (d < 0 || d >= self.dim || (seen >> d & 1) != 0) return kernels::permute_copy_out.fn(ctx, args);
    seen |= 1u << d;
    sizes[i] = self.sizes[d];
    from[i] = strides[d];
  }
  Error err = resize(out, sizes, self.dim);
  if (!err.ok()) return Error::make(err.code(), "aten::permute_copy.out: %s", err.message());
  if (out.data == self.data) return kernels::permute_copy_out.fn(ctx, args);
  copy_to_contiguous(self.data, from, out.data, sizes, self.dim, element_size(self.dtype));
  return Error();
}

}  // namespace

extern const KernelDef opt_permute_copy_out{"aten::permute_copy.out", "TI|T", &opt_permute_copy_out_impl, {}};

}  // namespace sb::optimized
