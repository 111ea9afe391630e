// aten::sum.IntList_out(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/complex.h"
#include "util/dtype_switch.h"
#include "util/promote.h"
#include "util/reduce.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::sum.IntList_out";

// A complex self sums into out of its own dtype, as ExecuTorch's kernel does:
// from the first folded element, adding the rest in index order (an empty
// fold is 0).
Error complex_sum(const Tensor& self, const Tensor& out, const ReducePlan& plan) {
  if (self.dtype != out.dtype) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: a complex sum needs out of self's dtype (self %s, out %s)", kOp,
                       scalar_type_name(self.dtype), scalar_type_name(out.dtype));
  }
  return switch_dtype<kOp, kComplexHTypes>(out.dtype, [&](auto zero) {
    using C = decltype(zero);
    const C* x = self.data_as<C>();
    C* y = out.data_as<C>();
    const int64_t n_out = out.numel();
    for (int64_t o = 0; o < n_out; ++o) {
      const C* first = x + kept_offset(plan, o);
      C acc = plan.count > 0 ? first[0] : ComplexArith<C>::zero();
      for (int64_t r = 1; r < plan.count; ++r) acc = ComplexArith<C>::add(acc, first[folded_offset(plan, r)]);
      y[o] = acc;
    }
    return Error();
  });
}

Error sum_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Span<const int64_t> dims = args[1]->is_none() ? Span<const int64_t>() : args[1]->as_int_list;
  Tensor& out = *args[4]->as_tensor;
  ReducePlan plan;
  Error err = plan_reduction(kOp, self, dims, args[2]->as_bool, &plan);
  if (!err.ok()) return err;
  if (!(err = resize_output(kOp, out, plan.out_sizes, plan.out_rank)).ok()) return err;
  // Any dtype in, any dtype out (ATen sums integers into int64); dtype=, when given, names out's.
  if (!args[3]->is_none() && args[3]->as_int != static_cast<int64_t>(out.dtype)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: dtype= differs from out's dtype %s", kOp,
                       scalar_type_name(out.dtype));
  }
  if (is_complex_type(self.dtype) || is_complex_type(out.dtype)) return complex_sum(self, out, plan);

  return switch_dtype<kOp, kRealHBBF16>(out.dtype, [&](auto zero) {
    using T = decltype(zero);
    using Acc = acc_t<T>;  // integer sums wrap like ATen's
    LoadFn<Acc> load = nullptr;
    Error e = get_load<kOp, kRealHBBF16, Acc>(self, &load);
    if (!e.ok()) return e;
    T* y = out.data_as<T>();
    const int64_t n_out = out.numel();
    for (int64_t o = 0; o < n_out; ++o) {
      const int64_t first = kept_offset(plan, o);
      Acc acc{};
      for (int64_t r = 0; r < plan.count; ++r) {
        const Acc v = load(self.data, first + folded_offset(plan, r));
        if constexpr (std::is_same_v<Acc, bool>) {
          acc = acc || v;
        } else {
          acc = static_cast<Acc>(acc + v);
        }
      }
      y[o] = convert<T>(acc);
    }
    return Error();
  });
}

}  // namespace

extern const KernelDef sum_IntList_out{kOp, "TJbn|T", &sum_out_impl, {}};

}  // namespace sb::kernels
