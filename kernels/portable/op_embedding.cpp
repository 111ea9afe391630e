// aten::embedding.out(Tensor weight, Tensor indices, SymInt padding_idx=-1, bool scale_grad_by_freq=False,
//                     bool sparse=False, *, Tensor(a!) out)
#include <cstring>

#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::embedding.out";

Error embedding_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& weight = *args[0]->as_tensor;
  const Tensor& indices = *args[1]->as_tensor;
  Tensor& out = *args[5]->as_tensor;
  if (weight.dim != 2) return Error::make(ErrorCode::kInvalidArgument, "%s: weight must be 2-D", kOp);
  if (indices.dim + 1 > kMaxDims) return Error::make(ErrorCode::kInvalidArgument, "%s: indices rank too big", kOp);
  int64_t sizes[kMaxDims];
  for (int32_t d = 0; d < indices.dim; ++d) sizes[d] = indices.sizes[d];
  sizes[indices.dim] = weight.sizes[1];
  Error err = resize_output(kOp, out, sizes, indices.dim + 1);
  if (!err.ok()) return err;
  if (!(err = check_dtype(kOp, "weight", weight, out.dtype)).ok()) return err;

  const int64_t rows = weight.sizes[0];
  const size_t row_bytes = static_cast<size_t>(weight.sizes[1]) * element_size(weight.dtype);
  const int64_t n = indices.numel();
  // Indices index the weight: both their dtype and the table's are dispatched.
  return switch_dtype<kOp, kIntType | kLongType>(indices.dtype, [&](auto zero) {
    using I = decltype(zero);
    const I* idx = indices.data_as<I>();
    for (int64_t i = 0; i < n; ++i) {
      if (idx[i] < 0 || idx[i] >= rows) {
        return Error::make(ErrorCode::kInvalidArgument, "%s: index %lld out of range for %lld rows", kOp,
                           static_cast<long long>(idx[i]), static_cast<long long>(rows));
      }
    }
    return switch_dtype<kOp, kAllTypes>(out.dtype, [&](auto) {
      const uint8_t* table = static_cast<const uint8_t*>(weight.data);
      uint8_t* y = static_cast<uint8_t*>(out.data);
      for (int64_t i = 0; i < n; ++i) memcpy(y + i * row_bytes, table + idx[i] * row_bytes, row_bytes);
      return Error();
    });
  });
}

}  // namespace

extern const KernelDef embedding_out{kOp, "TTibb|T", &embedding_out_impl, {}};

}  // namespace sb::kernels
