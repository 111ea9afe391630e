// aten::where.self_out: the float fast path of kernels/portable/op_where.cpp
// (a bool or uint8 condition, Float self, other and out, contiguous), with
// the three operands' broadcast folded into contiguous runs as the binary
// kernels fold theirs (an attention mask [1, 1, T, T] against scores
// [B, H, T, T], a 0-d fill value); everything else goes to the portable kernel.
#include <cstdint>

#include "sb/kernel.h"
#include "util/elementwise.h"
#include "util/shape.h"

namespace sb::kernels {
extern const KernelDef where_self_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::where.self_out";
constexpr int kOperands = 3;  // condition, self, other

struct Plan {
  int32_t rank = 0;
  int64_t sizes[kMaxDims] = {};
  int64_t strides[kOperands][kMaxDims] = {};  // elements; 0 along broadcast dims
};

// The broadcast shape of the operands into sizes/rank; false when they do not broadcast.
bool broadcast_all(const Tensor* const* in, int64_t* sizes, int32_t* rank) {
  int32_t r = 0;
  for (int k = 0; k < kOperands; ++k) r = in[k]->dim > r ? in[k]->dim : r;
  for (int32_t d = 0; d < r; ++d) {
    int64_t size = 1;
    for (int k = 0; k < kOperands; ++k) {
      const int32_t dk = in[k]->dim - r + d;
      const int64_t s = dk >= 0 ? in[k]->sizes[dk] : 1;
      if (s == 1) continue;
      if (size != 1 && size != s) return false;
      size = s;
    }
    sizes[d] = size;
  }
  *rank = r;
  return true;
}

void plan_where(const Tensor* const* in, const Tensor& out, Plan* plan) {
  int64_t st[kOperands][kMaxDims];
  for (int k = 0; k < kOperands; ++k) {
    int64_t step = 1;
    for (int32_t d = out.dim - 1; d >= 0; --d) {
      const int32_t dk = in[k]->dim - out.dim + d;
      const int64_t size = dk >= 0 ? in[k]->sizes[dk] : 1;
      st[k][d] = size == 1 ? 0 : step;
      step *= size;
    }
  }
  int32_t r = 0;
  for (int32_t d = 0; d < out.dim; ++d) {
    const int64_t n = out.sizes[d];
    if (n == 1) continue;
    bool merge = r > 0;
    for (int k = 0; merge && k < kOperands; ++k) merge = plan->strides[k][r - 1] == st[k][d] * n;
    if (merge) {
      plan->sizes[r - 1] *= n;
      for (int k = 0; k < kOperands; ++k) plan->strides[k][r - 1] = st[k][d];
      continue;
    }
    plan->sizes[r] = n;
    for (int k = 0; k < kOperands; ++k) plan->strides[k][r] = st[k][d];
    ++r;
  }
  plan->rank = r;
}

// One contiguous run: SC / SA / SB say whether the condition / self / other
// advance along it (false: one element broadcast). Branch-free, so the
// compiler vectorises each combination.
template <bool SC, bool SA, bool SB>
void run(const uint8_t* c, const float* a, const float* b, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float va = a[SA ? i : 0];  // both read: a select, not a branch
    const float vb = b[SB ? i : 0];
    y[i] = c[SC ? i : 0] != 0 ? va : vb;
  }
}

using RunFn = void (*)(const uint8_t*, const float*, const float*, float*, int64_t);

RunFn pick(bool sc, bool sa, bool sb) {
  static constexpr RunFn kRuns[8] = {
      run<false, false, false>, run<false, false, true>, run<false, true, false>, run<false, true, true>,
      run<true, false, false>,  run<true, false, true>,  run<true, true, false>,  run<true, true, true>,
  };
  return kRuns[(sc ? 4 : 0) + (sa ? 2 : 0) + (sb ? 1 : 0)];
}

Error opt_where_self_out_impl(KernelContext& ctx, Args args) {
  const Tensor& cond = *args[0]->as_tensor;
  const Tensor& self = *args[1]->as_tensor;
  const Tensor& other = *args[2]->as_tensor;
  Tensor& out = *args[3]->as_tensor;
  const Tensor* const in[kOperands] = {&cond, &self, &other};
  int64_t sizes[kMaxDims];
  int32_t rank = 0;
  if ((cond.dtype != ScalarType::kBool && cond.dtype != ScalarType::kByte) || self.dtype != ScalarType::kFloat ||
      other.dtype != ScalarType::kFloat || out.dtype != ScalarType::kFloat || !cond.is_default_dim_order() ||
      !self.is_default_dim_order() || !other.is_default_dim_order() || !out.is_default_dim_order() ||
      !broadcast_all(in, sizes, &rank)) {
    return kernels::where_self_out.fn(ctx, args);
  }
  bool shaped = out.dim == rank;
  for (int32_t d = 0; shaped && d < rank; ++d) shaped = out.sizes[d] == sizes[d];
  if (!shaped && !kernels::resize_output(kOp, out, sizes, rank).ok()) return kernels::where_self_out.fn(ctx, args);

  Plan plan;
  plan_where(in, out, &plan);
  const uint8_t* c = static_cast<const uint8_t*>(cond.data);  // bool and uint8 are both one byte
  const float* a = self.data_as<float>();
  const float* b = other.data_as<float>();
  float* y = out.data_as<float>();
  if (plan.rank == 0) {
    run<false, false, false>(c, a, b, y, 1);
    return Error();
  }
  const int32_t inner = plan.rank - 1;
  const int64_t n = plan.sizes[inner];
  const RunFn f = pick(plan.strides[0][inner] != 0, plan.strides[1][inner] != 0, plan.strides[2][inner] != 0);
  int64_t outer = 1;
  for (int32_t d = 0; d < inner; ++d) outer *= plan.sizes[d];
  int64_t index[kMaxDims] = {};
  int64_t offset[kOperands] = {};
  for (int64_t o = 0; o < outer; ++o) {
    f(c + offset[0], a + offset[1], b + offset[2], y + o * n, n);
    for (int32_t d = inner - 1; d >= 0; --d) {
      for (int k = 0; k < kOperands; ++k) offset[k] += plan.strides[k][d];
      if (++index[d] < plan.sizes[d]) break;
      for (int k = 0; k < kOperands; ++k) offset[k] -= plan.strides[k][d] * plan.sizes[d];
      index[d] = 0;
    }
  }
  return Error();
}

}  // namespace

extern const KernelDef opt_where_self_out{kOp, "TTT|T", &opt_where_self_out_impl, {}, kernels::kElementwiseLayout};

}  // namespace sb::optimized
