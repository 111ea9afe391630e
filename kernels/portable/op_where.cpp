// aten::where.self_out(Tensor condition, Tensor self, Tensor other, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/elementwise.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::where.self_out";

Error where_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& cond = *args[0]->as_tensor;
  const Tensor& self = *args[1]->as_tensor;
  const Tensor& other = *args[2]->as_tensor;
  Tensor& out = *args[3]->as_tensor;

  int64_t pair[kMaxDims];
  int32_t pair_rank = 0;
  Error err = broadcast_shape(kOp, self, other, pair, &pair_rank);
  if (!err.ok()) return err;
  const Tensor pair_shape = view_with_sizes(out, pair, pair_rank);
  if (!(err = check_broadcast_out(kOp, cond, pair_shape, out)).ok()) return err;
  if (!(err = check_dtype(kOp, "condition", cond, ScalarType::kBool)).ok()) return err;
  if (!(err = check_dtype(kOp, "self", self, out.dtype)).ok()) return err;
  if (!(err = check_dtype(kOp, "other", other, out.dtype)).ok()) return err;

  return switch_dtype<kOp, kRealAndBool>(out.dtype, [&](auto zero) {
    using T = decltype(zero);
    const BroadcastIndex ic(cond, out), is(self, out), io(other, out);
    const bool* c = cond.data_as<bool>();
    const T* a = self.data_as<T>();
    const T* b = other.data_as<T>();
    T* y = out.data_as<T>();
    const int64_t n = out.numel();
    for (int64_t i = 0; i < n; ++i) y[i] = c[ic(i)] ? a[is(i)] : b[io(i)];
    return Error();
  });
}

}  // namespace

extern const KernelDef where_self_out{kOp, "TTT|T", &where_out_impl, {}};

}  // namespace sb::kernels
