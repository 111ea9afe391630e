// aten::cumsum.out(Tensor self, int dim, *, ScalarType? dtype=None, Tensor(a!) out)
//
// Running sums along `dim`, computed in out's dtype (the input is converted
// on load, as ExecuTorch does): integers wrap, bools accumulate as "any so far".
#include "sb/kernel.h"
#include "util/arith_ops.h"
#include "util/dtype_switch.h"
#include "util/promote.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::cumsum.out";

Error cumsum_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[3]->as_tensor;
  int32_t dim = 0;
  Error err = normalize_dim(kOp, args[1]->as_int, self.dim, &dim);
  if (!err.ok()) return err;
  if (!args[2]->is_none() && args[2]->as_int != static_cast<int64_t>(out.dtype)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: dtype %lld differs from out's dtype %s", kOp,
                       static_cast<long long>(args[2]->as_int), scalar_type_name(out.dtype));
  }
  if (!(err = resize_output_like(kOp, out, self)).ok()) return err;
  if (self.numel() == 0) return Error();  // an empty dim has no first element to start from

  const int64_t outer = size_product(self, 0, dim);
  const int64_t len = self.dim == 0 ? 1 : self.sizes[dim];
  const int64_t inner = size_product(self, dim + 1, self.dim);
  return switch_dtype<kOp, kRealHBBF16>(self.dtype, [&](auto in_zero) {
    using In = decltype(in_zero);
    return switch_dtype<kOp, kRealHBBF16>(out.dtype, [&](auto out_zero) {
      using T = decltype(out_zero);
      const In* x = self.data_as<In>();
      T* y = out.data_as<T>();
      for (int64_t o = 0; o < outer; ++o) {
        const int64_t base = o * len * inner;
        for (int64_t i = 0; i < inner; ++i) {
          T acc = convert<T>(x[base + i]);
          y[base + i] = acc;
          for (int64_t k = 1; k < len; ++k) {
            const int64_t at = base + k * inner + i;
            acc = static_cast<T>(arith::add(convert<compute_t<T>>(x[at]), static_cast<compute_t<T>>(acc)));
            y[at] = acc;
          }
        }
      }
      return Error();
    });
  });
}

}  // namespace

extern const KernelDef cumsum_out{kOp, "Tin|T", &cumsum_out_impl, {}};

}  // namespace sb::kernels
