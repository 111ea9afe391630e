// aten::nonzero.out(Tensor self, *, Tensor(a!) out)
//
// out is [count, rank] Long: the coordinates of self's nonzero elements
// (NaN counts as nonzero), in row-major order of self's logical index. A
// data-dependent shape, set through resize_output (out must have a dynamic
// bound large enough). Any dim orders: ATen allocates nonzero's result
// column-major, so exported programs give out the dim order [1, 0]; both
// tensors are read and written through their own dim-order strides.
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
    for (int64_t i = 0; i < n; ++i) count += nonzero(x[i]) ? 1 : 0;  // the count needs no order
    const int64_t sizes[2] = {count, self.dim};
    Error err = resize_output(kOp, out, sizes, 2);
    if (!err.ok()) return err;
    int64_t x_strides[kMaxDims] = {};
    dim_order_strides(self, x_strides);
    int64_t y_strides[2] = {};
    dim_order_strides(out, y_strides);
    int64_t* y = out.data_as<int64_t>();
    int64_t coord[kMaxDims] = {};
    int64_t offset = 0;  // of coord in self's memory
    for (int64_t row = 0, i = 0; i < n; ++i) {
      if (nonzero(x[offset])) {
        for (int32_t d = 0; d < self.dim; ++d) y[row * y_strides[0] + d * y_strides[1]] = coord[d];
        ++row;
      }
      for (int32_t d = self.dim - 1; d >= 0; --d) {
        offset += x_strides[d];
        if (++coord[d] < self.sizes[d]) break;
        offset -= coord[d] * x_strides[d];
        coord[d] = 0;
      }
    }
    return Error();
  });
}

}  // namespace

extern const KernelDef nonzero_out{kOp, "T|T", &nonzero_out_impl, {}, LayoutPolicy::kAny};

}  // namespace sb::kernels
