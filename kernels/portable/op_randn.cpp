// aten::randn.out(SymInt[] size, *, Tensor(a!) out)
//
// Standard normal values. Not reproducible (ExecuTorch seeds its generator
// from std::random_device on every call), so tests check shape, dtype and
// statistics rather than values.
#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/random.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::randn.out";

Error randn_out_impl(KernelContext& /*ctx*/, Args args) {
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
    for (int64_t i = 0; i < n; ++i) y[i] = static_cast<T>(random_normal());
    return Error();
  });
}

}  // namespace

extern const KernelDef randn_out{kOp, "I|T", &randn_out_impl, {}};

}  // namespace sb::kernels
