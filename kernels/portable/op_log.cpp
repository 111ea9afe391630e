// aten::log.out(Tensor self, *, Tensor(a!) out)
#include <cmath>

#include "sb/kernel.h"
#include "util/unary.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::log.out";

Error log_out_impl(KernelContext& /*ctx*/, Args args) {
  return unary_float_op<kOp>(*args[0]->as_tensor, *args[1]->as_tensor, [](auto x) { return std::log(x); });
}

}  // namespace

extern const KernelDef log_out{kOp, "T|T", &log_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
