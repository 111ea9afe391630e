// optimized/operators/matmul_op.h: shapes checked, then one GEMM per batch.
#include "optimized/operators/matmul_op.h"

#include "optimized/microkernels/gemm.h"
#include "util/matmul.h"

namespace sb::optimized {

Error matmul_f32(const char* op, KernelContext& ctx, Args args, const KernelDef& fallback, int32_t rank) {
  const Tensor& a = *args[0]->as_tensor;
  const Tensor& b = *args[1]->as_tensor;
  const Tensor& out = *args[2]->as_tensor;
  const int32_t r = rank - 2;  // the matrix dims' first index
  if (a.dim != rank || b.dim != rank || (r == 1 && a.sizes[0] != b.sizes[0]) || a.sizes[r + 1] != b.sizes[r] ||
      out.dtype != ScalarType::kFloat) {
    return fallback.fn(ctx, args);
  }
  const int64_t batch = r == 1 ? a.sizes[0] : 1, m = a.sizes[r], k = a.sizes[r + 1], n = b.sizes[r + 1];
  const int64_t sizes[] = {batch, m, n};
  Error err = kernels::check_product(op, a, b, out, sizes + 1 - r, rank);
  if (!err.ok()) return err;
  const float* pa = a.data_as<float>();
  const float* pb = b.data_as<float>();
  float* pc = out.data_as<float>();
  // Several products (bmm; none for an empty batch): one per tile, each on one thread; a single one
  // splits its own blocks.
  ThreadPool* pool = pool_for(ctx.threads(), static_cast<uint64_t>(batch * m * n * k), kParallelMinFmas);
  if (batch != 1) {
    parallelize_1d(pool, static_cast<size_t>(batch), [&](size_t i) {
      const int64_t b = static_cast<int64_t>(i);
      gemm_f32(m, n, k, pa + b * m * k, k, pb + b * k * n, n, pc + b * m * n, n);
    });
    return Error();
  }
  gemm_f32(m, n, k, pa, k, pb, n, pc, n, GemmBias{}, pool);
  return Error();
}

}  // namespace sb::optimized
