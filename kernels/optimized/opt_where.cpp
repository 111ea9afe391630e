// aten::where.self_out: the float fast path of kernels/portable/op_where.cpp
// (a bool or uint8 condition, Float self, other and out, contiguous), with
// the three operands' broadcast folded into contiguous runs as the binary
// kernels fold theirs (an attention mask [1, 1, T, T] against scores
// [B, H, T, T], a 0-d fill value); everything else goes to the portable kernel.
#include <cstdint>
#include <cstring>

#include "optimized/simd/vec.h"
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

typedef uint8_t VecB __attribute__((vector_size(kLanes)));  // kLanes condition bytes

// One contiguous run of n elements. Each operand's step is kLanes, or 0 for a
// value broadcast along the run, which then points at a vector of it.
__attribute__((noinline)) void run(const uint8_t* c, int64_t sc, const float* a, int64_t sa, const float* b, int64_t sb,
                                   float* y, int64_t n) {
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes, c += sc, a += sa, b += sb) {
    VecB cb;
    std::memcpy(&cb, c, sizeof cb);
    store(y + i, __builtin_convertvector(cb, VecI) != 0 ? load(a) : load(b));
  }
  if (i < n) {
    const int64_t m = n - i;
    VecB cb = {};
    std::memcpy(&cb, c, static_cast<size_t>(sc != 0 ? m : kLanes));
    const VecF va = sa != 0 ? load_tail(a, m) : load(a);
    const VecF vb = sb != 0 ? load_tail(b, m) : load(b);
    store_tail(y + i, __builtin_convertvector(cb, VecI) != 0 ? va : vb, m);
  }
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
  const int32_t inner = plan.rank - 1;  // -1: one element
  const int64_t n = plan.rank == 0 ? 1 : plan.sizes[inner];
  bool step[kOperands];
  for (int k = 0; k < kOperands; ++k) step[k] = plan.rank == 0 || plan.strides[k][inner] != 0;
  int64_t outer = 1;
  for (int32_t d = 0; d < inner; ++d) outer *= plan.sizes[d];
  VecB splat_c;
  float splat_a[kLanes];
  float splat_b[kLanes];
  int64_t index[kMaxDims] = {};
  int64_t offset[kOperands] = {};
  for (int64_t o = 0; o < outer; ++o) {
    const uint8_t* pc = c + offset[0];
    const float* pa = a + offset[1];
    const float* pb = b + offset[2];
    if (!step[0]) splat_c = VecB{} + *pc;
    if (!step[1]) store(splat_a, splat(*pa));
    if (!step[2]) store(splat_b, splat(*pb));
    run(step[0] ? pc : reinterpret_cast<const uint8_t*>(&splat_c), step[0] ? kLanes : 0, step[1] ? pa : splat_a,
        step[1] ? kLanes : 0, step[2] ? pb : splat_b, step[2] ? kLanes : 0, y + o * n, n);
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
