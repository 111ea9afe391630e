// aten::masked_scatter.out(Tensor self, Tensor mask, Tensor source, *, Tensor(a!) out)
//
// out = self and mask broadcast together; where the mask is true, out takes
// the next element of source (row-major).
#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/elementwise.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::masked_scatter.out";

Error masked_scatter_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Tensor& mask = *args[1]->as_tensor;
  const Tensor& source = *args[2]->as_tensor;
  Tensor& out = *args[3]->as_tensor;
  Error err = check_dtype(kOp, "mask", mask, ScalarType::kBool);
  if (!err.ok() || !(err = check_dtype(kOp, "self", self, out.dtype)).ok()) return err;
  if (!(err = check_dtype(kOp, "source", source, out.dtype)).ok()) return err;
  if (!(err = check_broadcast_out(kOp, self, mask, out)).ok()) return err;
  const int64_t n = out.numel();
  const BroadcastIndex at_self(self, out);
  const BroadcastIndex at_mask(mask, out);
  const bool* m = mask.data_as<const bool>();
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += m[at_mask(i)] ? 1 : 0;
  if (count > source.numel()) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: the mask takes %lld elements, source has %lld", kOp,
                       static_cast<long long>(count), static_cast<long long>(source.numel()));
  }
  if (out.data == source.data && n != 0) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: out must not alias source", kOp);
  }
  return switch_dtype<kOp, kRealHBBF16>(out.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* x = self.data_as<const T>();
    const T* s = source.data_as<const T>();
    T* y = out.data_as<T>();
    int64_t k = 0;
    // Row-major, so y[i] is written after every x element it could alias has been read.
    for (int64_t i = 0; i < n; ++i) y[i] = m[at_mask(i)] ? s[k++] : x[at_self(i)];
    return Error();
  });
}

}  // namespace

extern const KernelDef masked_scatter_out{kOp, "TTT|T", &masked_scatter_out_impl, {}};

}  // namespace sb::kernels
