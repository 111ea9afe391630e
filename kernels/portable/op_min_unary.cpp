// aten::min.unary_out(Tensor self, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/extreme.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::min.unary_out";

Error impl(KernelContext& /*ctx*/, Args args) { return extreme_of_all<kOp, false, kRealHBBF16>(args); }

}  // namespace

extern const KernelDef min_unary_out{kOp, "T|T", &impl, {}};

}  // namespace sb::kernels
