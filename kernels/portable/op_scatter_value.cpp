// aten::scatter.value_out(Tensor self, int dim, Tensor index, Scalar value, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/indexing.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::scatter.value_out";

Error scatter_value_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Tensor& index = *args[2]->as_tensor;
  Tensor& out = *args[4]->as_tensor;
  DimIndex plan;
  Error err = begin_scatter(kOp, self, args[1]->as_int, index, nullptr, out, &plan);
  if (!err.ok()) return err;
  return switch_dtype<kOp, kRealHBBF16>(out.dtype, [&](auto zero) {
    using T = decltype(zero);
    T value;
    if (!scalar_cast_fits(*args[3], &value)) {
      return Error::make(ErrorCode::kInvalidArgument, "%s: value does not fit dtype %s", kOp,
                         scalar_type_name(out.dtype));
    }
    T* y = out.data_as<T>();
    for_each_dim_index(plan, [&](int64_t to, int64_t) { y[to] = value; });
    return Error();
  });
}

}  // namespace

extern const KernelDef scatter_value_out{kOp, "TiTs|T", &scatter_value_out_impl, {}};

}  // namespace sb::kernels
