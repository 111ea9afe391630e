// dim_order_ops::_to_dim_order_copy.out(Tensor self, *, bool non_blocking=False, int[]? dim_order=None,
//                                       Tensor(a!) out)
//
// Fast path: out in self's dim order, of self's dtype (a byte copy) or Float
// from Long or Int (the integer constants export makes, often 0-d). Other
// conversions and changes of dim order are the portable kernel's.
#include <cstring>

#include "sb/kernel.h"
#include "util/convert.h"
#include "util/shape.h"

namespace sb::kernels {
extern const KernelDef _to_dim_order_copy_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "dim_order_ops::_to_dim_order_copy.out";

template <typename From>
void to_float(const From* x, float* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = static_cast<float>(x[i]);
}

Error opt_to_dim_order_copy_out_impl(KernelContext& ctx, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[3]->as_tensor;
  const bool to_float_from_int = out.dtype == ScalarType::kFloat &&
                                 (self.dtype == ScalarType::kLong || self.dtype == ScalarType::kInt);
  if ((self.dtype != out.dtype && !to_float_from_int) || !same_dim_order(self, out) || out.data == self.data) {
    return kernels::_to_dim_order_copy_out.fn(ctx, args);
  }
  Error err = kernels::check_dim_order_arg(kOp, *args[2], &self, out);
  if (!err.ok()) return err;
  if (!(err = kernels::resize_output_like(kOp, out, self)).ok()) return err;
  const int64_t n = out.numel();
  if (self.dtype == out.dtype) {
    memcpy(out.data, self.data, out.nbytes());
  } else if (self.dtype == ScalarType::kLong) {
    to_float(self.data_as<const int64_t>(), out.data_as<float>(), n);
  } else {
    to_float(self.data_as<const int32_t>(), out.data_as<float>(), n);
  }
  return Error();
}

}  // namespace

extern const KernelDef opt__to_dim_order_copy_out{kOp, "TbJ|T", &opt_to_dim_order_copy_out_impl, {},
                                                LayoutPolicy::kAny};

}  // namespace sb::optimized
