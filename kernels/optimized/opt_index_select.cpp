// aten::index_select.out(Tensor self, int dim, Tensor index, *, Tensor(a!) out)
//
// Whole rows of the dims inside `dim` gathered by index (optimized/operators/gather_op.h),
// any dtype by element size; arguments the portable kernel refuses (an index
// out of range included) go to it for its message.
#include "optimized/operators/gather_op.h"
#include "sb/kernel.h"
#include "util/shape.h"

namespace sb::kernels {
extern const KernelDef index_select_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::index_select.out";

Error opt_index_select_out_impl(KernelContext& ctx, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Tensor& index = *args[2]->as_tensor;
  Tensor& out = *args[3]->as_tensor;
  const int64_t dim = args[1]->as_int < 0 ? args[1]->as_int + self.dim : args[1]->as_int;
  if (dim < 0 || dim >= self.dim || index.dim > 1 || out.dtype != self.dtype || out.data == self.data ||
      !indices_within(index, self.sizes[dim], false)) {
    return kernels::index_select_out.fn(ctx, args);
  }
  int64_t sizes[kMaxDims];
  for (int32_t d = 0; d < self.dim; ++d) sizes[d] = d == dim ? index.numel() : self.sizes[d];
  Error err = kernels::resize_output(kOp, out, sizes, self.dim);
  if (!err.ok()) return err;
  const int32_t d = static_cast<int32_t>(dim);
  const size_t row_bytes = static_cast<size_t>(kernels::size_product(self, d + 1, self.dim)) * element_size(self.dtype);
  gather_rows(self.data, self.sizes[d], row_bytes, index, kernels::size_product(self, 0, d), out.data);
  return Error();
}

}  // namespace

extern const KernelDef opt_index_select_out{kOp, "TiT|T", &opt_index_select_out_impl, {}};

}  // namespace sb::optimized
