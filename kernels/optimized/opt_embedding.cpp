// aten::embedding.out(Tensor weight, Tensor indices, SymInt padding_idx=-1, bool scale_grad_by_freq=False,
//                     bool sparse=False, *, Tensor(a!) out)
//
// The weight's rows gathered by index (optimized/operators/gather_op.h); arguments the
// portable kernel refuses (an index out of range included) go to it for its
// message.
#include "optimized/operators/gather_op.h"
#include "sb/kernel.h"
#include "util/shape.h"

namespace sb::kernels {
extern const KernelDef embedding_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::embedding.out";

Error opt_embedding_out_impl(KernelContext& ctx, Args args) {
  const Tensor& weight = *args[0]->as_tensor;
  const Tensor& indices = *args[1]->as_tensor;
  Tensor& out = *args[5]->as_tensor;
  if (weight.dim != 2 || indices.dim + 1 > kMaxDims || out.dtype != weight.dtype ||
      !indices_within(indices, weight.sizes[0], false)) {
    return kernels::embedding_out.fn(ctx, args);
  }
  int64_t sizes[kMaxDims];
  for (int32_t d = 0; d < indices.dim; ++d) sizes[d] = indices.sizes[d];
  sizes[indices.dim] = weight.sizes[1];
  Error err = kernels::resize_output(kOp, out, sizes, indices.dim + 1);
  if (!err.ok()) return err;
  gather_rows(weight.data, weight.sizes[0], static_cast<size_t>(weight.sizes[1]) * element_size(weight.dtype), indices,
              1, out.data);
  return Error();
}

}  // namespace

extern const KernelDef opt_embedding_out{kOp, "TTibb|T", &opt_embedding_out_impl, {}};

}  // namespace sb::optimized
