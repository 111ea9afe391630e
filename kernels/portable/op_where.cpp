// aten::where.self_out(Tensor condition, Tensor self, Tensor other, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/elementwise.h"
#include "util/promote.h"

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
  if (cond.dtype != ScalarType::kBool && cond.dtype != ScalarType::kByte) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: condition must be bool or uint8, not %s", kOp,
                       scalar_type_name(cond.dtype));
  }
  // self and other promote to a common dtype, which out must have.
  const ScalarType common = promote_types(self.dtype, other.dtype);
  if (!(err = check_dtype(kOp, "out", out, common)).ok()) return err;

  return switch_dtype<kOp, kRealHBBF16>(out.dtype, [&](auto zero) {
    using T = decltype(zero);
    LoadFn<T> load_a = nullptr;
    LoadFn<T> load_b = nullptr;
    Error e = get_load<kOp, kRealHBBF16, T>(self, &load_a);
    if (!e.ok() || !(e = get_load<kOp, kRealHBBF16, T>(other, &load_b)).ok()) return e;
    const BroadcastIndex ic(cond, out), is(self, out), io(other, out);
    const uint8_t* c = static_cast<const uint8_t*>(cond.data);  // bool and uint8 are both one byte
    T* y = out.data_as<T>();
    const int64_t n = out.numel();
    for (int64_t i = 0; i < n; ++i) y[i] = c[ic(i)] != 0 ? load_a(self.data, is(i)) : load_b(other.data, io(i));
    return Error();
  });
}

}  // namespace

extern const KernelDef where_self_out{kOp, "TTT|T", &where_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
