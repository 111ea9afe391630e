// aten::sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/reduce.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::sum.IntList_out";

Error sum_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Span<const int64_t> dims = args[1]->is_none() ? Span<const int64_t>() : args[1]->as_int_list;
  Tensor& out = *args[4]->as_tensor;
  ReducePlan plan;
  Error err = plan_reduction(kOp, self, dims, args[2]->as_bool, &plan);
  if (!err.ok()) return err;
  if (!(err = resize_output(kOp, out, plan.out_sizes, plan.out_rank)).ok()) return err;
  if (!(err = check_dtype(kOp, "self", self, out.dtype)).ok()) return err;
  if (!args[3]->is_none() && args[3]->as_int != static_cast<int64_t>(out.dtype)) {
    return Error::make(ErrorCode::kNotSupported, "%s: dtype conversion is not supported", kOp);
  }

  return switch_dtype<kOp, kRealTypes>(out.dtype, [&](auto zero) {
    using T = decltype(zero);
    using Acc = double;
    const T* x = self.data_as<T>();
    T* y = out.data_as<T>();
    const int64_t n_out = out.numel();
    for (int64_t o = 0; o < n_out; ++o) {
      const T* first = x + kept_offset(plan, o);
      Acc acc = 0;
      for (int64_t r = 0; r < plan.count; ++r) acc += static_cast<Acc>(first[folded_offset(plan, r)]);
      y[o] = static_cast<T>(acc);
    }
    return Error();
  });
}

}  // namespace

extern const KernelDef sum_IntList_out{kOp, "TJbn|T", &sum_out_impl, {}};

}  // namespace sb::kernels
