// aten::gelu.out: the float fast path of kernels/portable/op_gelu.cpp; everything else goes
// to the portable kernel.
#include "optimized/microkernels/unary_f32.h"
#include "optimized/operators/binary_op.h"
#include <cstring>
#include "sb/kernel.h"
#include "util/elementwise.h"
#include "util/promote.h"

namespace sb::kernels {
extern const KernelDef gelu_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::gelu.out";

bool equals(Span<const char> s, const char* literal) {
  return s.size() == strlen(literal) && memcmp(s.data(), literal, s.size()) == 0;
}

Error opt_gelu_out_impl(KernelContext& ctx, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Span<const char> approximate = args[1]->as_string;
  Tensor& out = *args[2]->as_tensor;
  const bool exact = equals(approximate, "none");
  if (!(exact || equals(approximate, "tanh")) || !prepare_unary_f32(kOp, self, out)) {
    return kernels::gelu_out.fn(ctx, args);
  }
  const float* x = self.data_as<float>();
  float* y = out.data_as<float>();
  if (exact) {
    for_element_tiles(ctx.threads(), out.numel(), [&](int64_t at, int64_t n) { gelu_erf_f32(x + at, y + at, n); });
  } else {
    for_element_tiles(ctx.threads(), out.numel(), [&](int64_t at, int64_t n) { gelu_tanh_f32(x + at, y + at, n); });
  }
  return Error();
}

}  // namespace

extern const KernelDef opt_gelu_out{kOp, "Tz|T", &opt_gelu_out_impl, {}, kernels::kElementwiseLayout};

}  // namespace sb::optimized
