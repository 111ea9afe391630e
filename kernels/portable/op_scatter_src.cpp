// aten::scatter.src_out(Tensor self, int dim, Tensor index, Tensor src, *, Tensor(a!) out)
#include "sb/kernel.h"
#include "util/indexing.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::scatter.src_out";

Error scatter_src_out_impl(KernelContext& /*ctx*/, Args args) {
  return scatter_from_src<kOp>(*args[0]->as_tensor, args[1]->as_int, *args[2]->as_tensor, *args[3]->as_tensor,
                               *args[4]->as_tensor, [](auto, auto v) { return v; });
}

}  // namespace

extern const KernelDef scatter_src_out{kOp, "TiTT|T", &scatter_src_out_impl, {}};

}  // namespace sb::kernels
