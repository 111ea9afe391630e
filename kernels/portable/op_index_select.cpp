// aten::index_select.out(Tensor self, int dim, Tensor index, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::index_select.out";

Error index_select_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Tensor& index = *args[2]->as_tensor;
  Tensor& out = *args[3]->as_tensor;
  int32_t dim = 0;
  Error err = normalize_dim(kOp, args[1]->as_int, self.dim, &dim);
  if (!err.ok()) return err;
  if (index.dim > 1) return Error::make(ErrorCode::kInvalidArgument, "%s: index must be 0-d or 1-d", kOp);
  const int64_t size = self.dim == 0 ? 1 : self.sizes[dim];
  const int64_t count = index.numel();
  if (self.dim == 0 && count != 1) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: a 0-d tensor takes exactly one index", kOp);
  }
  int64_t sizes[kMaxDims];
  for (int32_t d = 0; d < self.dim; ++d) sizes[d] = d == dim ? count : self.sizes[d];
  if (!(err = resize_output(kOp, out, sizes, self.dim)).ok()) return err;
  if (!(err = check_dtype(kOp, "self", self, out.dtype)).ok()) return err;
  return switch_dtype<kOp, kIntType | kLongType>(index.dtype, [&](auto izero) {
    using I = decltype(izero);
    const I* idx = index.data_as<const I>();
    for (int64_t i = 0; i < count; ++i) {
      if (idx[i] < 0 || idx[i] >= size) {
        return Error::make(ErrorCode::kInvalidArgument, "%s: index %lld is out of range for dim %d of size %lld",
                           kOp, static_cast<long long>(idx[i]), static_cast<int>(dim), static_cast<long long>(size));
      }
    }
    return switch_dtype<kOp, kRealHBBF16>(out.dtype, [&](auto zero) {
      using T = decltype(zero);
      const T* x = self.data_as<const T>();
      T* y = out.data_as<T>();
      const int64_t outer = self.dim == 0 ? 1 : size_product(self, 0, dim);
      const int64_t inner = self.dim == 0 ? 1 : size_product(self, dim + 1, self.dim);
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < count; ++i) {
          const T* from = x + (o * size + idx[i]) * inner;
          T* to = y + (o * count + i) * inner;
          for (int64_t k = 0; k < inner; ++k) to[k] = from[k];
        }
      }
      return Error();
    });
  });
}

}  // namespace

extern const KernelDef index_select_out{kOp, "TiT|T", &index_select_out_impl, {}};

}  // namespace sb::kernels
