// aten::full_like.out(Tensor self, Scalar fill_value, *, MemoryFormat? memory_format=None, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/fill.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::full_like.out";

Error full_like_out_impl(KernelContext& /*ctx*/, Args args) {
  Tensor& out = *args[3]->as_tensor;
  Error err = resize_output_like(kOp, out, *args[0]->as_tensor);
  if (!err.ok()) return err;
  return fill<kOp>(out, *args[1]);
}

}  // namespace

extern const KernelDef full_like_out{kOp, "Tsn|T", &full_like_out_impl, {}};

}  // namespace sb::kernels
