// aten::index.Tensor_out(Tensor self, Tensor?[] indices, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/advanced_index.h"
#include "util/dtype_switch.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::index.Tensor_out";

Error index_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[2]->as_tensor;
  AdvancedIndex plan;
  Error err = plan_advanced_index(kOp, self, args[1]->as_tensor_list, &plan);
  if (!err.ok()) return err;
  if (!(err = resize_output(kOp, out, plan.out_sizes, plan.out_rank)).ok()) return err;
  if (!(err = check_dtype(kOp, "self", self, out.dtype)).ok()) return err;
  return switch_dtype<kOp, kRealHBBF16>(out.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* x = self.data_as<const T>();
    T* y = out.data_as<T>();
    for_each_advanced_index(plan, [&](int64_t i, int64_t from) { y[i] = x[from]; });
    return Error();
  });
}

}  // namespace

extern const KernelDef index_Tensor_out{kOp, "TO|T", &index_out_impl, {}};

}  // namespace sb::kernels
