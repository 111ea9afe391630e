// aten::full.out(SymInt[] size, Scalar fill_value, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/fill.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::full.out";

Error full_out_impl(KernelContext& /*ctx*/, Args args) {
  Tensor& out = *args[2]->as_tensor;
  Error err = resize_output_to_size(kOp, out, args[0]->as_int_list);
  if (!err.ok()) return err;
  return fill<kOp>(out, *args[1]);
}

}  // namespace

extern const KernelDef full_out{kOp, "Is|T", &full_out_impl, {}};

}  // namespace sb::kernels
