// aten::rsqrt.out(Tensor self, *, Tensor(a!) out)
//
// Floating out; an integer or bool input is read as float (ATen's int-to-float promotion).
#include <cmath>

#include "sb/kernel.h"
#include "util/unary_ufunc.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::rsqrt.out";

Error rsqrt_out_impl(KernelContext& /*ctx*/, Args args) {
  return unary_to_float<kOp>(*args[0]->as_tensor, *args[1]->as_tensor,
                               [](auto x) { return decltype(x)(1) / std::sqrt(x); });
}

}  // namespace

extern const KernelDef rsqrt_out{kOp, "T|T", &rsqrt_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
