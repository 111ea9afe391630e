// aten::ones.out(SymInt[] size, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/fill.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::ones.out";

Error ones_out_impl(KernelContext& /*ctx*/, Args args) {
  Tensor& out = *args[1]->as_tensor;
  Error err = resize_output_to_size(kOp, out, args[0]->as_int_list);
  if (!err.ok()) return err;
  return fill<kOp>(out, Value::from_int(1));
}

}  // namespace

extern const KernelDef ones_out{kOp, "I|T", &ones_out_impl, {}};

}  // namespace sb::kernels
