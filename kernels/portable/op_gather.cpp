// aten::gather.out(Tensor self, int dim, Tensor index, *, bool sparse_grad=False, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/indexing.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::gather.out";

Error gather_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Tensor& index = *args[2]->as_tensor;
  Tensor& out = *args[4]->as_tensor;
  DimIndex plan;
  Error err = plan_dim_index(kOp, self, args[1]->as_int, index, nullptr, &plan);
  if (!err.ok()) return err;
  if (!(err = resize_output(kOp, out, index.sizes, index.dim)).ok()) return err;
  if (!(err = check_dtype(kOp, "self", self, out.dtype)).ok()) return err;
  return switch_dtype<kOp, kRealHBBF16>(out.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* x = self.data_as<const T>();
    T* y = out.data_as<T>();
    for_each_dim_index(plan, [&](int64_t from, int64_t to) { y[to] = x[from]; });
    return Error();
  });
}

}  // namespace

extern const KernelDef gather_out{kOp, "TiTb|T", &gather_out_impl, {}};

}  // namespace sb::kernels
