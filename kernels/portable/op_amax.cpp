// aten::amax.out(Tensor self, int[1] dim=[], bool keepdim=False, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/extreme.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::amax.out";

Error impl(KernelContext& /*ctx*/, Args args) { return extreme_over_dims<kOp, true, kRealHBBF16>(args); }

}  // namespace

extern const KernelDef amax_out{kOp, "TIb|T", &impl, {}};

}  // namespace sb::kernels
