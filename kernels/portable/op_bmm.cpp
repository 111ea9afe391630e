// aten::bmm.out(Tensor self, Tensor mat2, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/matmul.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::bmm.out";

Error bmm_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& a = *args[0]->as_tensor;
  const Tensor& b = *args[1]->as_tensor;
  const Tensor& out = *args[2]->as_tensor;
  if (a.dim != 3 || b.dim != 3 || a.sizes[0] != b.sizes[0] || a.sizes[2] != b.sizes[1]) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: needs [b, m, k] x [b, k, n] batches", kOp);
  }
  const int64_t batch = a.sizes[0], m = a.sizes[1], k = a.sizes[2], n = b.sizes[2];
  const int64_t sizes[] = {batch, m, n};
  Error err = check_product(kOp, a, b, out, sizes, 3);
  if (!err.ok()) return err;
  // The complex dtypes too, as ExecuTorch's bmm takes them (one dtype for all three, checked above).
  return switch_dtype<kOp, kRealHBF16 | kComplexHTypes>(out.dtype, [&](auto zero) {
    using T = decltype(zero);
    batched_matmul<T>(a.data_as<T>(), b.data_as<T>(), out.data_as<T>(), batch, m, k, n);
    return Error();
  });
}

}  // namespace

extern const KernelDef bmm_out{kOp, "TT|T", &bmm_out_impl, {}};

}  // namespace sb::kernels
