// aten::any.out(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) out) -- out is bool
#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/promote.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::any.out";

Error any_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const bool keepdim = args[2]->as_bool;
  Tensor& out = *args[3]->as_tensor;
  int32_t dim = 0;
  Error err = normalize_dim(kOp, args[1]->as_int, self.dim, &dim);
  if (!err.ok()) return err;
  if (out.dtype != ScalarType::kBool && out.dtype != ScalarType::kByte) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: out must be bool or uint8, not %s", kOp,
                       scalar_type_name(out.dtype));
  }

  int64_t sizes[kMaxDims];
  int32_t rank = 0;
  for (int32_t d = 0; d < self.dim; ++d) {
    if (d != dim) sizes[rank++] = self.sizes[d];
    else if (keepdim) sizes[rank++] = 1;
  }
  if (!(err = resize_output(kOp, out, sizes, rank)).ok()) return err;

  const int64_t outer = size_product(self, 0, dim);
  const int64_t reduced = self.dim == 0 ? 1 : self.sizes[dim];
  const int64_t inner = size_product(self, dim + 1, self.dim);
  return switch_dtype<kOp, kRealHBBF16>(self.dtype, [&](auto zero) {
    using T = decltype(zero);
    return switch_dtype<kOp, kBoolType | kByteType>(out.dtype, [&](auto out_zero) {
      using O = decltype(out_zero);
      const T* in = self.data_as<T>();
      O* y = out.data_as<O>();
      for (int64_t o = 0; o < outer; ++o) {
        for (int64_t i = 0; i < inner; ++i) {
          bool found = false;
          for (int64_t r = 0; r < reduced && !found; ++r) found = convert<bool>(in[(o * reduced + r) * inner + i]);
          y[o * inner + i] = static_cast<O>(found);
        }
      }
      return Error();
    });
  });
}

}  // namespace

extern const KernelDef any_out{kOp, "Tib|T", &any_out_impl, {}};

}  // namespace sb::kernels
