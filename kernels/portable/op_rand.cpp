// aten::rand.out(SymInt[] size, *, Tensor(a!) out)
//
// Uniform values in [0, 1). Not reproducible (ExecuTorch seeds its generator
// from std::random_device on every call), so tests check shape, dtype, range
// and statistics rather than values.
#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/random.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::rand.out";

Error rand_out_impl(KernelContext& /*ctx*/, Args args) {
  const Span<const int64_t> size = args[0]->as_int_list;
  Tensor& out = *args[1]->as_tensor;
  if (size.size() > static_cast<size_t>(kMaxDims)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: size has too many dims", kOp);
  }
  Error err = resize_output(kOp, out, size.data(), static_cast<int32_t>(size.size()));
  if (!err.ok()) return err;
  return switch_dtype<kOp, kFloatHBF16>(out.dtype, [&](auto zero) {
    using T = decltype(zero);
    T* y = out.data_as<T>();
    const int64_t n = out.numel();
    for (int64_t i = 0; i < n; ++i) {
      // Rounding to a narrower type can reach 1: draw again (rare) to stay in [0, 1).
      T v;
      do {
        v = static_cast<T>(random_uniform());
      } while (!(static_cast<double>(v) < 1.0));
      y[i] = v;
    }
    return Error();
  });
}

}  // namespace

extern const KernelDef rand_out{kOp, "I|T", &rand_out_impl, {}};

}  // namespace sb::kernels
