// aten::logical_not.out: the bool-to-bool fast path of kernels/portable/op_logical_not.cpp
// (attention masks); everything else goes to the portable kernel.
#include <cstdint>
#include <cstring>

#include "optimized/simd/vec.h"
#include "sb/kernel.h"
#include "util/elementwise.h"
#include "util/shape.h"

namespace sb::kernels {
extern const KernelDef logical_not_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::logical_not.out";

Error opt_logical_not_out_impl(KernelContext& ctx, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[1]->as_tensor;
  if (self.dtype != ScalarType::kBool || out.dtype != ScalarType::kBool ||
      !(same_shape(self, out) || kernels::resize_output_like(kOp, out, self).ok())) {
    return kernels::logical_not_out.fn(ctx, args);
  }
  // Bytes, not bools: a program's bool tensor may hold any byte (non-zero is true).
  const uint8_t* x = self.data_as<uint8_t>();
  uint8_t* y = out.data_as<uint8_t>();
  const int64_t n = out.numel();
  typedef uint8_t VecU8 __attribute__((vector_size(kVectorBytes)));
  constexpr int64_t kBytes = static_cast<int64_t>(kVectorBytes);
  int64_t i = 0;
  for (; i + kBytes <= n; i += kBytes) {
    VecU8 v;
    std::memcpy(&v, x + i, sizeof v);
    v = (v == 0) & 1;  // lanes 0xff / 0 -> 1 / 0
    std::memcpy(y + i, &v, sizeof v);
  }
  for (; i < n; ++i) y[i] = x[i] == 0;
  return Error();
}

}  // namespace

extern const KernelDef opt_logical_not_out{kOp, "T|T", &opt_logical_not_out_impl, {}, kernels::kElementwiseLayout};

}  // namespace sb::optimized
