// aten::mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out): fp32 on the
// packed GEMM, every other dtype (and every error) through the portable kernel.
#include "optimized/util/gemm.h"
#include "sb/kernel.h"
#include "util/matmul.h"

namespace sb::kernels {
extern const KernelDef mm_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::mm.out";

Error mm_out_impl(KernelContext& ctx, Args args) {
  const Tensor& a = *args[0]->as_tensor;
  const Tensor& b = *args[1]->as_tensor;
  const Tensor& out = *args[2]->as_tensor;
  if (a.dim != 2 || b.dim != 2 || a.sizes[1] != b.sizes[0] || out.dtype != ScalarType::kFloat) {
    return sb::kernels::mm_out.fn(ctx, args);
  }
  const int64_t m = a.sizes[0], k = a.sizes[1], n = b.sizes[1];
  const int64_t sizes[] = {m, n};
  Error err = kernels::check_product(kOp, a, b, out, sizes, 2);
  if (!err.ok()) return err;
  gemm_f32(m, n, k, a.data_as<float>(), k, b.data_as<float>(), n, out.data_as<float>(), n);
  return Error();
}

}  // namespace

extern const KernelDef opt_mm_out{kOp, "TT|T", &mm_out_impl, {}};

}  // namespace sb::optimized
