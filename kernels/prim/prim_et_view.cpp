// executorch_prim::et_view.default(Tensor self, int[] size) -> Tensor
//
// Out becomes a view of self's data with `size` (one entry may be -1). The
// loader points a view's out at self's memory before the first execute
// (Method's resolve_views, which finds this kernel in the registry), so that
// every tensor has memory behind it from load on.
#include "prim/util/scalar.h"
#include "sb/checked.h"
#include "sb/tensor.h"

namespace sb::prim {
namespace {

Error et_view_impl(KernelContext& ctx, Args args) {
  const char* op = ctx.kernel().op;
  const Tensor& self = *args[0]->as_tensor;
  const Span<const int64_t> size = args[1]->as_int_list;
  Tensor& out = *args[2]->as_tensor;
  if (out.dtype != self.dtype) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: out has dtype %s, self %s", op, scalar_type_name(out.dtype),
                       scalar_type_name(self.dtype));
  }
  if (size.size() != static_cast<size_t>(out.dim)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: %zu sizes for an out of rank %d", op, size.size(),
                       static_cast<int>(out.dim));
  }
  int64_t sizes[kMaxDims];
  int32_t infer = -1;
  uint64_t known = 1;
  for (int32_t i = 0; i < out.dim; ++i) {
    sizes[i] = size[i];
    if (size[i] == -1) {
      if (infer >= 0) return Error::make(ErrorCode::kInvalidArgument, "%s: at most one size can be -1", op);
      infer = i;
    } else if (size[i] < 0) {
      return Error::make(ErrorCode::kInvalidArgument, "%s: negative size %lld", op, static_cast<long long>(size[i]));
    } else {
      known = sat_mul(known, static_cast<uint64_t>(size[i]));
    }
  }
  if (infer >= 0) {
    if (known == 0) return Error::make(ErrorCode::kInvalidArgument, "%s: cannot infer a -1 size next to a 0", op);
    sizes[infer] = known == kSaturated ? 0 : self.numel() / static_cast<int64_t>(known);
  }
  if (shape_numel(sizes, out.dim) != static_cast<uint64_t>(self.numel())) {
    char want[80];
    format_shape(want, sizeof want, sizes, out.dim);
    return Error::make(ErrorCode::kInvalidArgument, "%s: shape %s does not hold self's %lld elements", op, want,
                       static_cast<long long>(self.numel()));
  }
  Error err = resize(out, sizes, out.dim);
  if (!err.ok()) return Error::make(err.code(), "%s: out %s", op, err.message());
  // The view holds what self's memory holds: self's elements now, and
  // whatever self may grow to.
  out.data = self.data;
  out.capacity = self.capacity > self.numel() ? self.capacity : self.numel();
  return Error();
}

}  // namespace

extern const KernelDef prim_et_view_default{"executorch_prim::et_view.default", "TI>T", &et_view_impl, {}};

}  // namespace sb::prim
