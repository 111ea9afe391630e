// aten::rand.out(SymInt[] size, *, Tensor(a!) out)
//
// Uniform values in [0, 1). Not reproducible (ExecuTorch seeds its generator
// from std::random_device on every call), so tests check shape, dtype, range
// and statistics rather than values.
#include "sb/kernel.h"
#include "util/random.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::rand.out";

Error rand_out_impl(KernelContext& /*ctx*/, Args args) {
  return fill_random<kOp>(args, [](auto zero) {
    using T = decltype(zero);
    // Rounding to a narrower type can reach 1: draw again (rare) to stay in [0, 1).
    T v;
    do {
      v = static_cast<T>(random_uniform());
    } while (!(static_cast<double>(v) < 1.0));
    return v;
  });
}

}  // namespace

extern const KernelDef rand_out{kOp, "I|T", &rand_out_impl, {}};

}  // namespace sb::kernels
