// aten::view_as_real_copy.out(Tensor self, *, Tensor(a!) out)
//
// A complex tensor of shape [...] as a real one of shape [..., 2]: the real
// part, then the imaginary part, of each element. As ExecuTorch's portable
// kernel: self is ComplexHalf, ComplexFloat or ComplexDouble; out is any of
// Half, Float and Double (the parts are converted to it, so a ComplexFloat
// may be read out as Double).
#include "sb/kernel.h"
#include "util/dtype_switch.h"
#include "util/promote.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::view_as_real_copy.out";

Error view_as_real_copy_out_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  Tensor& out = *args[1]->as_tensor;
  if (self.dim >= kMaxDims) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: self has %d dims; out would need %d, the limit is %d", kOp,
                       static_cast<int>(self.dim), static_cast<int>(self.dim) + 1, kMaxDims);
  }
  int64_t sizes[kMaxDims];
  for (int32_t d = 0; d < self.dim; ++d) sizes[d] = self.sizes[d];
  sizes[self.dim] = 2;
  Error err = resize_output(kOp, out, sizes, self.dim + 1);
  if (!err.ok()) return err;
  if (!is_complex_type(self.dtype)) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: self must be complex, not %s", kOp,
                       scalar_type_name(self.dtype));
  }
  return switch_dtype<kOp, kComplexHTypes>(self.dtype, [&](auto self_zero) {
    using In = decltype(self_zero);
    return switch_dtype<kOp, kFloatHTypes>(out.dtype, [&](auto out_zero) {
      using Out = decltype(out_zero);
      const In* x = self.data_as<In>();
      Out* y = out.data_as<Out>();
      const int64_t n = self.numel();
      for (int64_t i = 0; i < n; ++i) {
        y[2 * i] = convert<Out>(x[i].re);
        y[2 * i + 1] = convert<Out>(x[i].im);
      }
      return Error();
    });
  });
}

}  // namespace

extern const KernelDef view_as_real_copy_out{kOp, "T|T", &view_as_real_copy_out_impl, {}};

}  // namespace sb::kernels
