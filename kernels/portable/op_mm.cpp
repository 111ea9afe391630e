// aten::mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/matmul.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::mm.out";

Error mm_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& a = *args[0]->as_tensor;
  const Tensor& b = *args[1]->as_tensor;
  const Tensor& out = *args[2]->as_tensor;
  if (a.dim != 2 || b.dim != 2 || a.sizes[1] != b.sizes[0]) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: needs [m, k] x [k, n] matrices", kOp);
  }
  const int64_t sizes[] = {a.sizes[0], b.sizes[1]};
  Error err = check_product(kOp, a, b, out, sizes, 2);
  if (!err.ok()) return err;
  return switch_dtype<kOp, kRealHBF16>(out.dtype, [&](auto zero) {
    using T = decltype(zero);
    batched_matmul<T>(a.data_as<T>(), b.data_as<T>(), out.data_as<T>(), 1, a.sizes[0], a.sizes[1], b.sizes[1]);
    return Error();
  });
}

}  // namespace

extern const KernelDef mm_out{kOp, "TT|T", &mm_out_impl, {}};

}  // namespace sb::kernels
