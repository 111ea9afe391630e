// aten::randn.out(SymInt[] size, *, Tensor(a!) out)
//
// Standard normal values. Not reproducible (ExecuTorch seeds its generator
// from std::random_device on every call), so tests check shape, dtype and
// statistics rather than values.
#include "sb/kernel.h"
#include "util/random.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::randn.out";

Error randn_out_impl(KernelContext& /*ctx*/, Args args) {
  return fill_random<kOp>(args, [](auto zero) { return static_cast<decltype(zero)>(random_normal()); });
}

}  // namespace

extern const KernelDef randn_out{kOp, "I|T", &randn_out_impl, {}};

}  // namespace sb::kernels
