// aten::nonzero.out(Tensor self, *, Tensor(a!) out)
//
// out is [count, rank] Long: the coordinates of self's nonzero elements
// (NaN counts as nonzero), row-major. A data-dependent shape, set through
// resize_output (out must have a dynamic bound large enough).
#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::nonzero.out";

Error nonzero_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[1]->as_tensor;
  if (out.dtype != ScalarType::kLong) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: out has dtype %s, expected Long", kOp,
                       scalar_type_name(out.dtype));
  }
  return switch_dtype<kOp, kRealHBBF16>(self.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* x = self.data_as<const T>();
    const int64_t n = self.numel();
    // Half and BFloat16 compare as float (their bits alone would call -0 nonzero).
    auto nonzero = [](T v) { return static_cast<double>(v) != 0.0; };
    int64_t count = 0;
    for (int64_t i = 0; i < n; ++i) count += nonzero(x[i]) ? 1 : 0;
    const int64_t sizes[2] = {count, self.dim};
    Error err = resize_output(kOp, out, sizes, 2);
    if (!err.ok()) return err;
    int64_t* y = out.data_as<int64_t>();
    int64_t coord[kMaxDims] = {};
    for (int64_t i = 0; i < n; ++i) {
      if (nonzero(x[i])) {
        for (int32_t d = 0; d < self.dim; ++d) *y++ = coord[d];
      }
      for (int32_t d = self.dim - 1; d >= 0; --d) {
        if (++coord[d] < self.sizes[d]) break;
        coord[d] = 0;
      }
    }
    return Error();
  });
}

}  // namespace

extern const KernelDef nonzero_out{kOp, "T|T", &nonzero_out_impl, {}};

}  // namespace sb::kernels
