// aten::scatter.src_out(Tensor self, int dim, Tensor index, Tensor src, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/indexing.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::scatter.src_out";

Error scatter_src_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Tensor& index = *args[2]->as_tensor;
  const Tensor& src = *args[3]->as_tensor;
  Tensor& out = *args[4]->as_tensor;
  DimIndex plan;
  Error err = begin_scatter(kOp, self, args[1]->as_int, index, &src, out, &plan);
  if (!err.ok()) return err;
  return switch_dtype<kOp, kRealHBBF16>(out.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* s = src.data_as<const T>();
    T* y = out.data_as<T>();
    for_each_dim_index(plan, [&](int64_t to, int64_t from) { y[to] = s[from]; });
    return Error();
  });
}

}  // namespace

extern const KernelDef scatter_src_out{kOp, "TiTT|T", &scatter_src_out_impl, {}};

}  // namespace sb::kernels
