// aten::clamp.Tensor_out(Tensor self, Tensor? min=None, Tensor? max=None, *, Tensor(a!) out)
//
// min and max broadcast with self; the three promote together. A NaN in
// self, min or max propagates (maximum, then minimum).
#include "sb/kernel.h"
#include "util/arith.h"
#include "util/arith_ops.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::clamp.Tensor_out";

Error clamp_tensor_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const bool has_min = !args[1]->is_none();
  const bool has_max = !args[2]->is_none();
  Tensor& out = *args[3]->as_tensor;
  if (!has_min && !has_max) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: at least one of min and max must be given", kOp);
  }
  // An absent bound reads self in its place (and is ignored).
  const Tensor& min = has_min ? *args[1]->as_tensor : self;
  const Tensor& max = has_max ? *args[2]->as_tensor : self;
  const ScalarType common = promote_types(promote_types(self.dtype, min.dtype), max.dtype);
  Error err = check_can_cast(kOp, common, out);
  if (!err.ok()) return err;

  int64_t pair[kMaxDims];
  int32_t pair_rank = 0;
  if (!(err = broadcast_shape(kOp, self, min, pair, &pair_rank)).ok()) return err;
  if (!(err = resize_to_broadcast(kOp, view_with_sizes(self, pair, pair_rank), max, out)).ok()) return err;

  return arith_detail::switch_compute<kOp, kRealB>(compute_type(common), [&](auto zero) {
    using C = decltype(zero);
    return map_ternary_as<kOp, kRealHBBF16, kRealHBBF16, C>(self, min, max, out, [=](C x, C lo, C hi) {
      if (has_min) x = arith::maximum(x, lo);
      if (has_max) x = arith::minimum(x, hi);
      return x;
    });
  });
}

}  // namespace

extern const KernelDef clamp_Tensor_out{kOp, "Ttt|T", &clamp_tensor_out_impl, {}, kElementwiseLayout};

}  // namespace sb::kernels
