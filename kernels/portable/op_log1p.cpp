// aten::log1p.out(Tensor self, *, Tensor(a!) out)
//
// Floating out; an integer or bool input is read as float (ATen's int-to-float promotion).
#include <cmath>

#include "sb/kernel.h"
#include "util/unary_ufunc.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::log1p.out";

Error log1p_out_impl(KernelContext& /*ctx*/, Args args) {
  return unary_to_float<kOp>(*args[0]->as_tensor, *args[1]->as_tensor,
                               [](auto x) { return std::log1p(x); });
}

}  // namespace

extern const KernelDef log1p_out{kOp, "T|T", &log1p_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
