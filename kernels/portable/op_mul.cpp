// aten::mul.out(Tensor self, Tensor other, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/binary.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::mul.out";

Error mul_out_impl(KernelContext& /*ctx*/, Args args) {
  return binary_op<kOp, kRealAndBool>(*args[0]->as_tensor, *args[1]->as_tensor, *args[2]->as_tensor,
                                      [](auto x, auto y) { return x * y; });
}

}  // namespace

extern const KernelDef mul_out{kOp, "TT|T", &mul_out_impl, {}};

}  // namespace sb::kernels
