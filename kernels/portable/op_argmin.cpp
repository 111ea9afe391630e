// aten::argmin.out(Tensor self, int? dim=None, bool keepdim=False, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/extreme.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::argmin.out";

Error impl(KernelContext& /*ctx*/, Args args) { return arg_extreme_out<kOp, false, kRealHBF16>(args); }

}  // namespace

extern const KernelDef argmin_out{kOp, "Tnb|T", &impl, {}};

}  // namespace sb::kernels
