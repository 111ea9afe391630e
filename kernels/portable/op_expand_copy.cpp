// aten::expand_copy.out(Tensor self, SymInt[] size, *, bool implicit=False, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/copy.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::expand_copy.out";

Error expand_copy_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Span<const int64_t> size = args[1]->as_int_list;
  Tensor& out = *args[3]->as_tensor;
  const int32_t rank = static_cast<int32_t>(size.size());
  if (rank > kMaxDims || rank < self.dim) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: cannot expand rank %d to %d", kOp, static_cast<int>(self.dim), static_cast<int>(rank));
  }
  int64_t strides[kMaxDims];
  contiguous_strides(self, strides);
  int64_t sizes[kMaxDims];
  int64_t src_strides[kMaxDims];
  for (int32_t i = 0; i < rank; ++i) {
    const int32_t d = self.dim - rank + i;  // aligned from the right
    const int64_t have = d >= 0 ? self.sizes[d] : 1;
    const int64_t want = size[i] == -1 ? have : size[i];
    if (want < 0 || (d < 0 && size[i] == -1) || (have != want && have != 1)) {
      return Error::make(ErrorCode::kInvalidArgument, "%s: cannot expand dim %d of size %lld to %lld", kOp, static_cast<int>(i),
                         static_cast<long long>(have), static_cast<long long>(size[i]));
    }
    sizes[i] = want;
    src_strides[i] = (d >= 0 && have == want) ? strides[d] : 0;
  }
  Error err = resize_output(kOp, out, sizes, rank);
  if (!err.ok()) return err;
  if (!(err = check_dtype(kOp, "self", self, out.dtype)).ok()) return err;
  strided_copy(self.data, 0, src_strides, out.data, sizes, rank, element_size(out.dtype));
  return Error();
}

}  // namespace

extern const KernelDef expand_copy_out{kOp, "TIb|T", &expand_copy_out_impl, {}};

}  // namespace sb::kernels
