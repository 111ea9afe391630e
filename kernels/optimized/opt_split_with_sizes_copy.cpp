// aten::split_with_sizes_copy.out(Tensor self, SymInt[] split_sizes, int dim=0, *, Tensor(a!)[] out)
//
// Each piece a strided copy of rows (optimized/microkernels/copy_box.h); arguments the portable
// kernel refuses go to it for its message.
#include "optimized/microkernels/copy_box.h"
#include "sb/kernel.h"
#include "util/shape.h"

namespace sb::kernels {
extern const KernelDef split_with_sizes_copy_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::split_with_sizes_copy.out";

Error opt_split_with_sizes_copy_out_impl(KernelContext& ctx, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Span<const int64_t> split = args[1]->as_int_list;
  const Span<Tensor* const> outs = args[3]->as_tensor_list;
  const int64_t dim = args[2]->as_int < 0 ? args[2]->as_int + self.dim : args[2]->as_int;
  bool fast = dim >= 0 && dim < self.dim && split.size() == outs.size();
  int64_t total = 0;
  for (size_t i = 0; fast && i < split.size(); ++i) {
    fast = split[i] >= 0 && !__builtin_add_overflow(total, split[i], &total) && outs[i]->dtype == self.dtype &&
           outs[i]->data != self.data;
  }
  if (!fast || total != self.sizes[dim]) return kernels::split_with_sizes_copy_out.fn(ctx, args);
  int64_t sizes[kMaxDims];
  int64_t from[kMaxDims];
  for (int32_t d = 0; d < self.dim; ++d) sizes[d] = self.sizes[d];
  row_major_strides(sizes, self.dim, from);
  // Every output is validated before any is written.
  for (size_t i = 0; i < outs.size(); ++i) {
    sizes[dim] = split[i];
    Error err = kernels::resize_output(kOp, *outs[i], sizes, self.dim);
    if (!err.ok()) return err;
  }
  const size_t elem = element_size(self.dtype);
  const auto* at = static_cast<const uint8_t*>(self.data);
  for (size_t i = 0; i < outs.size(); ++i) {
    sizes[dim] = split[i];
    copy_to_contiguous(at, from, outs[i]->data, sizes, self.dim, elem);
    at += split[i] * from[dim] * static_cast<int64_t>(elem);
  }
  return Error();
}

}  // namespace

extern const KernelDef opt_split_with_sizes_copy_out{kOp, "TIi|L", &opt_split_with_sizes_copy_out_impl, {}};

}  // namespace sb::optimized
