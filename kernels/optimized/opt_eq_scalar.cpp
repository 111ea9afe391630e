// aten::eq.Scalar_out: the float-to-bool fast path of kernels/portable/op_eq_scalar.cpp
// (a Float tensor against a number, compared as float, as the portable
// kernel's promotion does); everything else goes to the portable kernel.
#include <cstdint>
#include <cstring>

#include "optimized/simd/vec.h"
#include "sb/kernel.h"
#include "util/elementwise.h"
#include "util/promote.h"
#include "util/shape.h"

namespace sb::kernels {
extern const KernelDef eq_Scalar_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::eq.Scalar_out";

Error opt_eq_scalar_out_impl(KernelContext& ctx, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[2]->as_tensor;
  if (self.dtype != ScalarType::kFloat || out.dtype != ScalarType::kBool ||
      !(same_shape(self, out) || kernels::resize_output_like(kOp, out, self).ok())) {
    return kernels::eq_Scalar_out.fn(ctx, args);
  }
  const float other = kernels::scalar_to<float>(*args[1]);
  const float* x = self.data_as<float>();
  uint8_t* y = out.data_as<uint8_t>();
  const int64_t n = out.numel();
  typedef int8_t VecB __attribute__((vector_size(kLanes)));  // one byte per float lane
  const VecF v = splat(other);
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    const VecB b = __builtin_convertvector(load(x + i) == v, VecB) & 1;  // lanes -1 / 0 -> 1 / 0
    std::memcpy(y + i, &b, sizeof b);
  }
  for (; i < n; ++i) y[i] = x[i] == other;
  return Error();
}

}  // namespace

extern const KernelDef opt_eq_Scalar_out{kOp, "Ts|T", &opt_eq_scalar_out_impl, {}, kernels::kElementwiseLayout};

}  // namespace sb::optimized
