// aten::_softmax.out(Tensor self, int dim, bool half_to_float, *, Tensor(a!) out)
#include <cmath>

#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::_softmax.out";

Error softmax_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[3]->as_tensor;
  int32_t dim = 0;
  Error err = normalize_dim(kOp, args[1]->as_int, self.dim, &dim);
  if (!err.ok()) return err;
  if (args[2]->as_bool) return Error::make(ErrorCode::kNotSupported, "%s: half_to_float is not supported", kOp);
  if (!(err = resize_output_like(kOp, out, self)).ok()) return err;
  if (!(err = check_dtype(kOp, "self", self, out.dtype)).ok()) return err;

  const int64_t outer = size_product(self, 0, dim);
  const int64_t n = self.dim == 0 ? 1 : self.sizes[dim];
  const int64_t inner = size_product(self, dim + 1, self.dim);
  if (n == 0) return Error();  // nothing to write, and no first element to start the max from
  return switch_dtype<kOp, kFloatHBF16>(out.dtype, [&](auto zero) {
    using T = decltype(zero);
    const T* x = self.data_as<T>();
    T* y = out.data_as<T>();  // may alias x: each element is read before it is written
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t base = o * n * inner + i;
        T max = x[base];
        for (int64_t k = 1; k < n; ++k) max = x[base + k * inner] > max ? x[base + k * inner] : max;
        double sum = 0.0;
        for (int64_t k = 0; k < n; ++k) {
          const T e = std::exp(x[base + k * inner] - max);
          y[base + k * inner] = e;
          sum += e;
        }
        const T scale = static_cast<T>(1.0 / sum);
        for (int64_t k = 0; k < n; ++k) y[base + k * inner] = y[base + k * inner] * scale;
      }
    }
    return Error();
  });
}

}  // namespace

extern const KernelDef _softmax_out{kOp, "Tib|T", &softmax_out_impl, {}};

}  // namespace sb::kernels
