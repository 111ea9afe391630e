// aten::hardtanh.out: the float fast path of kernels/portable/op_hardtanh.cpp,
// which forwards to clamp.out; this clamps in place of that call (the
// KernelDef keeps portable's `calls`, so the op graph is unchanged). Everything
// else goes to the portable kernel.
#include "optimized/microkernels/clamp_f32.h"
#include "optimized/operators/binary_op.h"
#include "optimized/operators/clamp_bounds.h"
#include "sb/kernel.h"
#include "util/elementwise.h"

namespace sb::kernels {
extern const KernelDef hardtanh_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::hardtanh.out";
constexpr const char* kCalls[] = {"aten::clamp.out"};

Error opt_hardtanh_out_impl(KernelContext& ctx, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[3]->as_tensor;
  if (!plain_bound(*args[1]) || !plain_bound(*args[2]) || !prepare_unary_f32("aten::clamp.out", self, out)) {
    return kernels::hardtanh_out.fn(ctx, args);
  }
  const float* x = self.data_as<float>();
  float* y = out.data_as<float>();
  const float lo = kernels::scalar_to<float>(*args[1]), hi = kernels::scalar_to<float>(*args[2]);
  for_element_tiles(ctx.threads(), out.numel(),
                    [&](int64_t at, int64_t n) { clamp_f32(x + at, y + at, n, true, lo, true, hi); });
  return Error();
}

}  // namespace

extern const KernelDef opt_hardtanh_out{kOp, "Tss|T", &opt_hardtanh_out_impl, kCalls, kernels::kElementwiseLayout};

}  // namespace sb::optimized
