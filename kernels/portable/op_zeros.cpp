// aten::zeros.out(SymInt[] size, *, Tensor(a!) out)
//
// Zero is all-zero bytes in every dtype.
#include <cstring>

#include "sb/kernel.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::zeros.out";

Error zeros_out_impl(KernelContext& /*ctx*/, Args args) {
  Tensor& out = *args[1]->as_tensor;
  Error err = resize_output_to_size(kOp, out, args[0]->as_int_list);
  if (!err.ok()) return err;
  if (out.nbytes() != 0) memset(out.data, 0, out.nbytes());
  return Error();
}

}  // namespace

extern const KernelDef zeros_out{kOp, "I|T", &zeros_out_impl, {}};

}  // namespace sb::kernels
