// optimized/operators/pool_op.h: the pool geometry checked, the band plan sized, outs resized.
#include "optimized/operators/pool_op.h"

#include "util/shape.h"

namespace sb::optimized {

Error plan_pool_bands(const char* op, const Tensor& in, Args args, bool has_dilation, int64_t arrays,
                      Span<Tensor* const> outs, PoolBands* plan, bool* fast) {
  *fast = false;
  kernels::PoolGeometry& g = plan->g;
  const int ceil_at = has_dilation ? 5 : 4;
  Error err = kernels::pool_geometry(op, in, args[1]->as_int_list, args[2]->as_int_list, args[3]->as_int_list,
                                     has_dilation ? args[4]->as_int_list : Span<const int64_t>(),
                                     args[ceil_at]->as_bool, &g);
  if (!err.ok()) return err;
  if (g.dh != 1 || g.dw != 1 || g.kh > kPoolMaxKernel || g.kw > kPoolMaxKernel || g.sw > 2 ||
      g.w > (int64_t{1} << 24) || g.h > (int64_t{1} << 24) || g.h * g.w > (int64_t{1} << 30)) {
    return Error();
  }
  // Phase floats: every column written (a vector from the last), every tap read.
  plan->shift = g.sw - 1;
  const int64_t len_w = ((g.w + g.pw) >> plan->shift) + kLanes + 1;
  const int64_t len_o = (g.ow + kLanes - 1) / kLanes * kLanes + ((g.kw - 1) >> plan->shift);
  plan->len = len_w > len_o ? len_w : len_o;
  plan->row_len = g.sw * plan->len;
  plan->band = kPoolScratchFloats / arrays / plan->row_len;
  if (plan->band < 1) return Error();
  for (int64_t kj = 0; kj < g.kw; ++kj) plan->tap_off[kj] = (kj & plan->shift) * plan->len + (kj >> plan->shift);
  int64_t sizes[kMaxDims];
  kernels::pool_out_sizes(in, g, sizes);
  for (Tensor* out : outs) {
    if (!(err = kernels::resize_output(op, *out, sizes, in.dim)).ok()) return err;
  }
  *fast = true;
  return Error();
}

}  // namespace sb::optimized
