// aten::roll.out(Tensor self, SymInt[] shifts, int[] dims=[], *, Tensor(a!) out)
//
// Like ExecuTorch, shifts and dims pair up (the flattened form, dims=[], is
// refused); a dim named twice rolls by the sum of its shifts. Rolling a dim by
// s splits it into two runs, [0, n-s) moving to [s, n) and [n-s, n) moving to
// [0, s), so the roll is one strided copy per combination of runs.
#include "sb/kernel.h"
#include "util/shape.h"
#include "util/strided.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::roll.out";

Error roll_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Span<const int64_t> shifts = args[1]->as_int_list;
  const Span<const int64_t> dims = args[2]->as_int_list;
  Tensor& out = *args[3]->as_tensor;
  if (self.dim == 0) return Error::make(ErrorCode::kInvalidArgument, "%s: cannot roll a 0-d tensor", kOp);
  if (shifts.size() == 0 || shifts.size() != dims.size()) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: %zu shifts for %zu dims", kOp, shifts.size(), dims.size());
  }
  Error err = check_dtype(kOp, "out", out, self.dtype);
  if (!err.ok()) return err;
  if (!(err = resize_output(kOp, out, self.sizes, self.dim)).ok()) return err;
  if (self.numel() == 0) return Error();
  int64_t shift[kMaxDims] = {};  // per dim, in [0, size)
  for (size_t i = 0; i < dims.size(); ++i) {
    int32_t d = 0;
    if (!(err = normalize_dim(kOp, dims[i], self.dim, &d)).ok()) return err;
    const int64_t n = self.sizes[d];
    shift[d] = (shift[d] + (shifts[i] % n + n) % n) % n;  // each term < n: no overflow
  }
  int32_t rolled[kMaxDims];
  int32_t count = 0;
  for (int32_t d = 0; d < self.dim; ++d) {
    if (shift[d] != 0) rolled[count++] = d;
  }
  const Layout in = layout_of(self);
  const size_t elem = element_size(self.dtype);
  for (uint32_t runs = 0; runs < (1u << count); ++runs) {
    Layout from = in;
    Layout to = in;
    int64_t sizes[kMaxDims];
    for (int32_t d = 0; d < self.dim; ++d) sizes[d] = self.sizes[d];
    for (int32_t k = 0; k < count; ++k) {
      const int32_t d = rolled[k];
      const int64_t n = self.sizes[d];
      const int64_t s = shift[d];
      if ((runs >> k) & 1u) {  // the tail [n-s, n) wraps to the front
        sizes[d] = s;
        from.offset += (n - s) * in.strides[d];
      } else {  // the head [0, n-s) moves back by s
        sizes[d] = n - s;
        to.offset += s * in.strides[d];
      }
    }
    walk_copy(self.data, from, out.data, to, sizes, self.dim, elem);
  }
  return Error();
}

}  // namespace

extern const KernelDef roll_out{kOp, "TII|T", &roll_out_impl, {}};

}  // namespace sb::kernels
