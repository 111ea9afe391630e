// aten::div.out(Tensor self, Tensor other, *, Tensor(a!) out) -- true division
#include "sb/kernel.h"
#include "util/binary.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::div.out";

Error div_out_impl(KernelContext& /*ctx*/, Args args) {
  return binary_op<kOp, kFloatTypes>(*args[0]->as_tensor, *args[1]->as_tensor, *args[2]->as_tensor,
                                     [](auto x, auto y) { return x / y; });
}

}  // namespace

extern const KernelDef div_out{kOp, "TT|T", &div_out_impl, {}};

}  // namespace sb::kernels
