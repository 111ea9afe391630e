// aten::copy.out(Tensor self, Tensor src, bool non_blocking=False, *, Tensor(a!) out)
//
// Fast path: src of out's dtype, both in the default dim order: out (self's
// shape) gets src's bytes, broadcast through zero strides. Conversions and
// other dim orders are the portable kernel's.
#include "optimized/microkernels/copy_box.h"
#include "sb/kernel.h"
#include "util/elementwise.h"
#include "util/shape.h"

namespace sb::kernels {
extern const KernelDef copy_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::copy.out";

Error opt_copy_out_impl(KernelContext& ctx, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Tensor& src = *args[1]->as_tensor;
  Tensor& out = *args[3]->as_tensor;
  if (src.dtype != out.dtype || !src.is_default_dim_order() || !out.is_default_dim_order()) {
    return kernels::copy_out.fn(ctx, args);
  }
  Error err = kernels::resize_output_like(kOp, out, self);
  if (!err.ok()) return err;
  if (!(err = kernels::check_broadcasts_to(kOp, src, out)).ok()) return err;
  if (src.data == out.data) return Error();  // copy_ onto itself (same shape: src broadcasts to out)
  // src's strides aligned to out's dims from the right; a broadcast dim steps 0.
  int64_t strides[kMaxDims];
  int64_t step = 1;
  for (int32_t d = out.dim - 1; d >= 0; --d) {
    const int32_t s = d - (out.dim - src.dim);
    strides[d] = s >= 0 && src.sizes[s] != 1 ? step : 0;
    if (s >= 0) step *= src.sizes[s];
  }
  copy_to_contiguous(src.data, strides, out.data, out.sizes, out.dim, element_size(out.dtype));
  return Error();
}

}  // namespace

// Other dim orders go to the portable kernel, which reads each tensor's.
extern const KernelDef opt_copy_out{kOp, "TTb|T", &opt_copy_out_impl, {}, LayoutPolicy::kAny};

}  // namespace sb::optimized
