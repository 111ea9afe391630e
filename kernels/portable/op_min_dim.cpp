// aten::min.dim_min(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) min, Tensor(b!) min_indices)
#include "sb/kernel.h"
#include "util/extreme.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::min.dim_min";

Error impl(KernelContext& /*ctx*/, Args args) { return extreme_along_dim<kOp, false, kRealHBBF16>(args); }

}  // namespace

extern const KernelDef min_dim_min{kOp, "Tib|TT", &impl, {}};

}  // namespace sb::kernels
