// aten::bmm.out(Tensor self, Tensor mat2, *, Tensor(a!) out): fp32 on the
// packed GEMM, batch by batch; every other dtype (and every error) through
// the portable kernel.
#include "optimized/util/gemm.h"
#include "sb/kernel.h"
#include "util/matmul.h"

namespace sb::kernels {
extern const KernelDef bmm_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::bmm.out";

Error bmm_out_impl(KernelContext& ctx, Args args) {
  const Tensor& a = *args[0]->as_tensor;
  const Tensor& b = *args[1]->as_tensor;
  const Tensor& out = *args[2]->as_tensor;
  if (a.dim != 3 || b.dim != 3 || a.sizes[0] != b.sizes[0] || a.sizes[2] != b.sizes[1] ||
      out.dtype != ScalarType::kFloat) {
    return sb::kernels::bmm_out.fn(ctx, args);
  }
  const int64_t batch = a.sizes[0], m = a.sizes[1], k = a.sizes[2], n = b.sizes[2];
  const int64_t sizes[] = {batch, m, n};
  Error err = kernels::check_product(kOp, a, b, out, sizes, 3);
  if (!err.ok()) return err;
  const float* pa = a.data_as<float>();
  const float* pb = b.data_as<float>();
  float* pc = out.data_as<float>();
  for (int64_t i = 0; i < batch; ++i) gemm_f32(m, n, k, pa + i * m * k, k, pb + i * k * n, n, pc + i * m * n, n);
  return Error();
}

}  // namespace

extern const KernelDef opt_bmm_out{kOp, "TT|T", &bmm_out_impl, {}};

}  // namespace sb::optimized
