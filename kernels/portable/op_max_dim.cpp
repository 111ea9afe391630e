// aten::max.dim_max(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) max, Tensor(b!) max_values)
#include "sb/kernel.h"
#include "util/extreme.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::max.dim_max";

Error impl(KernelContext& /*ctx*/, Args args) { return extreme_along_dim<kOp, true, kRealHBBF16>(args); }

}  // namespace

extern const KernelDef max_dim_max{kOp, "Tib|TT", &impl, {}};

}  // namespace sb::kernels
