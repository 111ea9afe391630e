// aten::expand_copy.out(Tensor self, SymInt[] size, *, bool implicit=False, Tensor(a!) out)
//
// A strided copy with zero strides on the broadcast dims (optimized/microkernels/copy_box.h);
// an expansion to the same shape, as attention's are, is one memcpy. A size
// the portable kernel refuses goes to it for its message.
#include "optimized/microkernels/copy_box.h"
#include "sb/kernel.h"
#include "util/shape.h"

namespace sb::kernels {
extern const KernelDef expand_copy_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::expand_copy.out";

Error opt_expand_copy_out_impl(KernelContext& ctx, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Span<const int64_t> size = args[1]->as_int_list;
  Tensor& out = *args[3]->as_tensor;
  const int32_t rank = static_cast<int32_t>(size.size());
  if (rank > kMaxDims || rank < self.dim || out.dtype != self.dtype || out.data == self.data) {
    return kernels::expand_copy_out.fn(ctx, args);
  }
  int64_t sizes[kMaxDims];
  int64_t from[kMaxDims];
  int64_t step = 1;
  for (int32_t i = rank - 1; i >= 0; --i) {
    const int32_t d = self.dim - rank + i;  // aligned from the right
    const int64_t have = d >= 0 ? self.sizes[d] : 1;
    const int64_t want = size[i] == -1 ? have : size[i];
    if (want < 0 || (d < 0 && size[i] == -1) || (have != want && have != 1)) return kernels::expand_copy_out.fn(ctx, args);
    sizes[i] = want;
    from[i] = have == want ? step : 0;
    step *= have;
  }
  Error err = kernels::resize_output(kOp, out, sizes, rank);
  if (!err.ok()) return err;
  copy_to_contiguous(self.data, from, out.data, sizes, rank, element_size(out.dtype));
  return Error();
}

}  // namespace

extern const KernelDef opt_expand_copy_out{kOp, "TIb|T", &opt_expand_copy_out_impl, {}};

}  // namespace sb::optimized
