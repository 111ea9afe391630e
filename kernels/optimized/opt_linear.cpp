// aten::linear.out(Tensor input, Tensor weight, Tensor? bias=None, *, Tensor(a!) out)
//
// out[m, n] = input[m, k] . weight[n, k]^T (+ bias[n]), fp32 on the packed GEMM
// (optimized/microkernels/gemm.h): the weight is B transposed, so a PanelPacker
// writes each panel from kGemmNR weight rows (each read contiguously along k),
// and a bias of n values is added inside the tiles, as addmm's linear form is.
// Everything else (other dtypes, a bias of one value, empty reductions, every
// error) goes to the portable kernel, whose checks then speak.
#include "optimized/microkernels/gemm.h"
#include "sb/kernel.h"
#include "util/matmul.h"
#include "util/shape.h"

namespace sb::kernels {
extern const KernelDef linear_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::linear.out";

struct TransposedWeight {
  const float* weight;  // [n, k], row-major
  int64_t k;
};

// B[k0 .. k0+kc) x [j0 .. j0+nr) of B = weight^T: column j of the panel is weight row j0 + j.
void pack_transposed(const void* ctx, int64_t k0, int64_t kc, int64_t j0, int64_t nr, int64_t width, float* dst) {
  const auto& w = *static_cast<const TransposedWeight*>(ctx);
  for (int64_t j = 0; j < nr; ++j) {
    const float* row = w.weight + (j0 + j) * w.k + k0;
    for (int64_t p = 0; p < kc; ++p) dst[p * width + j] = row[p];
  }
  for (int64_t p = 0; p < kc; ++p) {
    for (int64_t j = nr; j < width; ++j) dst[p * width + j] = 0.0f;
  }
}

Error linear_out_impl(KernelContext& ctx, Args args) {
  const Tensor& input = *args[0]->as_tensor;
  const Tensor& weight = *args[1]->as_tensor;
  const Value& bias_arg = *args[2];
  Tensor& out = *args[3]->as_tensor;
  const auto fallback = [&] { return sb::kernels::linear_out.fn(ctx, args); };
  if (input.dim < 1 || weight.dim != 2 || input.sizes[input.dim - 1] != weight.sizes[1] || weight.sizes[1] == 0 ||
      input.dtype != ScalarType::kFloat || weight.dtype != ScalarType::kFloat || out.dtype != ScalarType::kFloat) {
    return fallback();
  }
  const int64_t k = weight.sizes[1], n = weight.sizes[0];
  const Tensor* bias = bias_arg.is_none() ? nullptr : bias_arg.as_tensor;
  if (bias != nullptr && (bias->dtype != ScalarType::kFloat || bias->dim != 1 || bias->sizes[0] != n)) {
    return fallback();
  }
  int64_t out_sizes[kMaxDims];
  for (int32_t d = 0; d + 1 < input.dim; ++d) out_sizes[d] = input.sizes[d];
  out_sizes[input.dim - 1] = n;
  Error err = kernels::check_product(kOp, input, weight, out, out_sizes, input.dim);
  if (err.ok() && bias != nullptr) err = kernels::check_no_overlap(kOp, out, *bias, *bias);
  if (!err.ok()) return fallback();
  const int64_t m = kernels::size_product(input, 0, input.dim - 1);
  if (m == 0 || n == 0) return Error();
  const TransposedWeight transposed{weight.data_as<float>(), k};
  GemmBias columns;
  columns.col = bias != nullptr ? bias->data_as<float>() : nullptr;
  gemm_f32_packed(m, n, k, input.data_as<float>(), k, PanelPacker{&pack_transposed, &transposed},
                  out.data_as<float>(), n, columns, ctx.threads());
  return Error();
}

}  // namespace

extern const KernelDef opt_linear_out{kOp, "TTt|T", &linear_out_impl, {}};

}  // namespace sb::optimized
