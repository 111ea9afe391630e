// aten::glu.out(Tensor self, int dim=-1, *, Tensor(a!) out)
//
// self split in halves a, b along dim (its size must be even); out = a * sigmoid(b).
// Floating dtypes only (ExecuTorch's set); the math runs in compute_t of self's type.
#include <cmath>

#include "sb/kernel.h"
#include "util/shape.h"
#include "util/unary_ufunc.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::glu.out";

Error glu_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[2]->as_tensor;
  if (self.dim == 0) return Error::make(ErrorCode::kInvalidArgument, "%s: glu does not take a 0-d tensor", kOp);
  int32_t dim = 0;
  Error err = normalize_dim(kOp, args[1]->as_int, self.dim, &dim);
  if (!err.ok()) return err;
  if (self.sizes[dim] % 2 != 0) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: dim %d has odd size %lld, it must halve", kOp, static_cast<int>(dim),
                       static_cast<long long>(self.sizes[dim]));
  }
  if (!is_floating_type(self.dtype) || !is_floating_type(out.dtype)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: self and out must be floating (got %s, %s)", kOp,
                       scalar_type_name(self.dtype), scalar_type_name(out.dtype));
  }
  int64_t sizes[kMaxDims];
  for (int32_t d = 0; d < self.dim; ++d) sizes[d] = self.sizes[d];
  sizes[dim] /= 2;
  if (!(err = resize_output(kOp, out, sizes, self.dim)).ok()) return err;
  // out viewed as [outer, half, inner]; a and b are [outer, 2 * half, inner] at offsets 0 and half * inner.
  const int64_t outer = size_product(self, 0, dim);
  const int64_t half = sizes[dim];
  const int64_t inner = size_product(self, dim + 1, self.dim);
  return switch_dtype<kOp, kFloatHBF16>(self.dtype, [&](auto in_zero) {
    using In = decltype(in_zero);
    using C = float_compute_t<In>;
    return switch_dtype<kOp, kFloatHBF16>(out.dtype, [&](auto out_zero) {
      using Out = decltype(out_zero);
      const In* x = self.data_as<In>();
      Out* y = out.data_as<Out>();
      const int64_t block = half * inner;
      for (int64_t o = 0; o < outer; ++o) {
        const In* a = x + o * 2 * block;
        const In* b = a + block;
        Out* z = y + o * block;
        for (int64_t i = 0; i < block; ++i) {
          const C gate = C(1) / (C(1) + std::exp(-static_cast<C>(b[i])));
          z[i] = static_cast<Out>(static_cast<C>(a[i]) * gate);
        }
      }
      return Error();
    });
  });
}

}  // namespace

extern const KernelDef glu_out{kOp, "Ti|T", &glu_out_impl, {}};

}  // namespace sb::kernels
