// aten::arange.start_out(Scalar start, Scalar end, Scalar step=1, *, Tensor(a!) out)
//
// ceil((end - start) / step) values start + i * step, computed in double and
// converted to out's dtype, as ExecuTorch does.
#include <cmath>
#include <limits>
#include <type_traits>

#include "sb/checked.h"
#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::arange.start_out";

Error arange_start_out_impl(KernelContext& /*ctx*/, Args args) {
  const double start = args[0]->scalar_as_double();
  const double end = args[1]->scalar_as_double();
  const double step = args[2]->scalar_as_double();
  Tensor& out = *args[3]->as_tensor;
  if (!std::isfinite(start) || !std::isfinite(end) || !std::isfinite(step)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: start, end and step must be finite", kOp);
  }
  if (!((step > 0 && end >= start) || (step < 0 && end <= start))) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: step %g cannot go from %g to %g", kOp, step, start, end);
  }
  const double count = std::ceil((end - start) / step);
  if (!(count >= 0 && count <= static_cast<double>(kMaxElements))) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: the range has too many values", kOp);
  }
  const int64_t n = static_cast<int64_t>(count);
  Error err = resize_output(kOp, out, &n, 1);
  if (!err.ok()) return err;
  return switch_dtype<kOp, kRealHBF16>(out.dtype, [&](auto zero) {
    using T = decltype(zero);
    T* y = out.data_as<T>();
    for (int64_t i = 0; i < n; ++i) {
      const double v = start + static_cast<double>(i) * step;
      if constexpr (std::is_integral_v<T>) {
        // Converting a double outside T's range is undefined: refuse it.
        const double lo = static_cast<double>(std::numeric_limits<T>::min()) - 1.0;
        const double hi = static_cast<double>(std::numeric_limits<T>::max()) + 1.0;
        if (!(v > lo && v < hi)) {
          return Error::make(ErrorCode::kInvalidArgument, "%s: value %g does not fit the out dtype", kOp, v);
        }
      }
      y[i] = static_cast<T>(v);
    }
    return Error();
  });
}

}  // namespace

extern const KernelDef arange_start_out{kOp, "sss|T", &arange_start_out_impl, {}};

}  // namespace sb::kernels
