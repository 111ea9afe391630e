// aten::addmm.out(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1, Tensor(a!) out)
//
// out = beta * self (broadcast to [m, n]) + alpha * (mat1 @ mat2), fp32 on the
// packed GEMM. The linear layer's form (beta = alpha = 1, self one bias per
// column) adds the bias inside the GEMM's tiles; other scalars and
// broadcasts take one pass over out after the product. Everything else
// (other dtypes, shapes that do not broadcast, errors) goes to the portable
// kernel, which composes mm, mul and add through the dispatcher as ATen does.
#include "optimized/microkernels/gemm.h"
#include "sb/kernel.h"
#include "util/matmul.h"

namespace sb::kernels {
extern const KernelDef addmm_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::addmm.out";
constexpr const char* kCalls[] = {"aten::mm.out", "aten::mul.Scalar_out", "aten::add.out"};

// Element strides of self broadcast to [m, n] (0 along a broadcast dim), or
// false when self does not broadcast.
bool broadcast_strides(const Tensor& self, int64_t m, int64_t n, int64_t* row, int64_t* col) {
  if (self.dim == 0) {
    *row = *col = 0;
    return true;
  }
  if (self.dim == 1) {
    if (self.sizes[0] != n && self.sizes[0] != 1) return false;
    *row = 0;
    *col = self.sizes[0] == 1 ? 0 : 1;
    return true;
  }
  if (self.dim != 2) return false;
  const int64_t r = self.sizes[0], c = self.sizes[1];
  if ((r != m && r != 1) || (c != n && c != 1)) return false;
  *col = c == 1 ? 0 : 1;
  *row = r == 1 ? 0 : c;
  return true;
}

Error addmm_out_impl(KernelContext& ctx, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Tensor& a = *args[1]->as_tensor;
  const Tensor& b = *args[2]->as_tensor;
  const Tensor& out = *args[5]->as_tensor;
  const auto fallback = [&] { return sb::kernels::addmm_out.fn(ctx, args); };
  if (a.dim != 2 || b.dim != 2 || a.sizes[1] != b.sizes[0] || out.dtype != ScalarType::kFloat ||
      a.dtype != ScalarType::kFloat || b.dtype != ScalarType::kFloat) {
    return fallback();
  }
  const int64_t m = a.sizes[0], k = a.sizes[1], n = b.sizes[1];
  const double beta = args[3]->scalar_as_double();
  const double alpha = args[4]->scalar_as_double();
  const bool use_self = beta != 0.0;  // ATen ignores self then, even NaNs
  int64_t srow = 0, scol = 0;
  if (use_self && (self.dtype != ScalarType::kFloat || !broadcast_strides(self, m, n, &srow, &scol))) {
    return fallback();
  }
  const int64_t sizes[] = {m, n};
  Error err = kernels::check_product(kOp, a, b, out, sizes, 2);
  if (err.ok() && use_self) err = kernels::check_no_overlap(kOp, out, self, self);
  if (!err.ok()) return fallback();
  float* c = out.data_as<float>();
  const float* s = use_self ? self.data_as<float>() : nullptr;
  if (use_self && beta == 1.0 && alpha == 1.0 && srow == 0 && scol == 1) {
    GemmBias bias;
    bias.col = s;
    gemm_f32(m, n, k, a.data_as<float>(), k, b.data_as<float>(), n, c, n, bias, ctx.threads());
    return Error();
  }
  gemm_f32(m, n, k, a.data_as<float>(), k, b.data_as<float>(), n, c, n, GemmBias{}, ctx.threads());
  const float fa = static_cast<float>(alpha);
  const float fb = static_cast<float>(beta);
  if (alpha == 1.0 && !use_self) return Error();
  for (int64_t i = 0; i < m; ++i) {
    float* row = c + i * n;
    if (alpha != 1.0) {
      for (int64_t j = 0; j < n; ++j) row[j] *= fa;
    }
    if (use_self) {
      const float* srow_p = s + i * srow;
      for (int64_t j = 0; j < n; ++j) row[j] += fb * srow_p[j * scol];
    }
  }
  return Error();
}

}  // namespace

extern const KernelDef opt_addmm_out{kOp, "TTTss|T", &addmm_out_impl, kCalls};

}  // namespace sb::optimized
