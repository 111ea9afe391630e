// aten::scatter_add.out(Tensor self, int dim, Tensor index, Tensor src, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/indexing.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::scatter_add.out";

Error scatter_add_out_impl(KernelContext& /*ctx*/, Args args) {
  // Elements are added in index order, so repeated targets sum like ATen's serial loop.
  return scatter_from_src<kOp>(*args[0]->as_tensor, args[1]->as_int, *args[2]->as_tensor, *args[3]->as_tensor,
                               *args[4]->as_tensor, [](auto acc, auto v) { return wrapping_add(acc, v); });
}

}  // namespace

extern const KernelDef scatter_add_out{kOp, "TiTT|T", &scatter_add_out_impl, {}};

}  // namespace sb::kernels
