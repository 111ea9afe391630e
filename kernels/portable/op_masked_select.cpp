// aten::masked_select.out(Tensor self, Tensor mask, *, Tensor(a!) out)
//
// out is 1-D with one element per true mask element of self and mask
// broadcast together: a data-dependent shape, set through resize_output (out
// must have a dynamic bound large enough).
#include "sb/checked.h"
#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/elementwise.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::masked_select.out";

Error masked_select_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Tensor& mask = *args[1]->as_tensor;
  Tensor& out = *args[2]->as_tensor;
  Error err = check_dtype(kOp, "mask", mask, ScalarType::kBool);
  if (!err.ok() || !(err = check_dtype(kOp, "self", self, out.dtype)).ok()) return err;
  int64_t sizes[kMaxDims];
  int32_t rank = 0;
  if (!(err = broadcast_shape(kOp, self, mask, sizes, &rank)).ok()) return err;
  if (shape_numel(sizes, rank) == kSaturated) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: the broadcast shape is too large", kOp);
  }
  const Tensor shape = view_with_sizes(self, sizes, rank);  // only its shape is used
  const int64_t n = shape.numel();
  const BroadcastIndex at_self(self, shape);
  const BroadcastIndex at_mask(mask, shape);
  const bool* m = mask.data_as<const bool>();
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += m[at_mask(i)] ? 1 : 0;
  const int64_t out_sizes[1] = {count};
  if (!(err = resize_output(kOp, out, out_sizes, 1)).ok()) return err;
  return switch_dtype<kOp, kRealHBBF16>(out.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* x = self.data_as<const T>();
    T* y = out.data_as<T>();
    int64_t k = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (m[at_mask(i)]) y[k++] = x[at_self(i)];
    }
    return Error();
  });
}

}  // namespace

extern const KernelDef masked_select_out{kOp, "TT|T", &masked_select_out_impl, {}};

}  // namespace sb::kernels
