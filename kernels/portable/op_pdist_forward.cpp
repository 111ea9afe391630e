// aten::_pdist_forward.out(Tensor self, float p=2., *, Tensor(a!) out)
//
// The p-norm distance between every pair of rows i < j of a 2-D input, in
// row-major pair order: out has N*(N-1)/2 elements.
#include "sb/checked.h"
#include "sb/kernel.h"
#include "util/distance.h"
#include "util/dtype_switch.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::_pdist_forward.out";

Error pdist_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const double p = args[1]->as_double;
  Tensor& out = *args[2]->as_tensor;
  if (self.dim != 2) return Error::make(ErrorCode::kInvalidArgument, "%s: input must be 2-D", kOp);
  Error err = check_norm_p(kOp, p);
  if (!err.ok()) return err;
  if (!(err = check_dtype(kOp, "out", out, self.dtype)).ok()) return err;
  const int64_t n = self.sizes[0];
  const int64_t m = self.sizes[1];
  // The pair count n * (n - 1) / 2 must fit a size. n * (n - 1) is even, so it
  // saturates (to the odd kSaturated) exactly when it does not fit 64 bits.
  const uint64_t twice_pairs = n < 2 ? 0 : sat_mul(static_cast<uint64_t>(n), static_cast<uint64_t>(n - 1));
  if (twice_pairs == kSaturated || twice_pairs / 2 > static_cast<uint64_t>(INT64_MAX)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: too many rows", kOp);
  }
  const int64_t size = static_cast<int64_t>(twice_pairs / 2);
  if (!(err = resize_output(kOp, out, &size, 1)).ok()) return err;
  return switch_dtype<kOp, kFloatHBF16>(self.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* x = self.data_as<T>();
    T* y = out.data_as<T>();
    int64_t o = 0;
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = i + 1; j < n; ++j) y[o++] = static_cast<T>(pnorm_distance(x + i * m, x + j * m, m, p));
    }
    return Error();
  });
}

}  // namespace

extern const KernelDef _pdist_forward_out{kOp, "Td|T", &pdist_impl, {}};

}  // namespace sb::kernels
