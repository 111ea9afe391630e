// aten::select_copy.int_out(Tensor self, int dim, SymInt index, *, Tensor(a!) out)
//
// A strided copy of rows (optimized/microkernels/copy_box.h) of the selected slab; arguments
// the portable kernel refuses go to it for its message.
#include "optimized/microkernels/copy_box.h"
#include "sb/kernel.h"
#include "util/shape.h"

namespace sb::kernels {
extern const KernelDef select_copy_int_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::select_copy.int_out";

Error opt_select_copy_out_impl(KernelContext& ctx, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[3]->as_tensor;
  const int64_t d = args[1]->as_int < 0 ? args[1]->as_int + self.dim : args[1]->as_int;
  if (d < 0 || d >= self.dim || out.dtype != self.dtype || out.data == self.data) {
    return kernels::select_copy_int_out.fn(ctx, args);
  }
  const int64_t n = self.sizes[d];
  int64_t index = args[2]->as_int;
  if (index < -n || index >= n) return kernels::select_copy_int_out.fn(ctx, args);
  if (index < 0) index += n;
  int64_t strides[kMaxDims];
  row_major_strides(self.sizes, self.dim, strides);
  int64_t sizes[kMaxDims];
  int64_t from[kMaxDims];
  int32_t rank = 0;
  for (int32_t i = 0; i < self.dim; ++i) {
    if (i == d) continue;
    sizes[rank] = self.sizes[i];
    from[rank++] = strides[i];
  }
  Error err = kernels::resize_output(kOp, out, sizes, rank);
  if (!err.ok()) return err;
  const size_t elem = element_size(out.dtype);
  copy_to_contiguous(static_cast<const uint8_t*>(self.data) + index * strides[d] * static_cast<int64_t>(elem), from,
                     out.data, sizes, rank, elem);
  return Error();
}

}  // namespace

extern const KernelDef opt_select_copy_int_out{kOp, "Tii|T", &opt_select_copy_out_impl, {}};

}  // namespace sb::optimized
