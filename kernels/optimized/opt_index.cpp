// aten::index.Tensor_out(Tensor self, Tensor?[] indices, *, Tensor(a!) out)
//
// Fast path: one Int or Long index tensor on the first dim, the rest None
// (x[idx], a lookup table's rows): the portable kernel's plan validates
// (util/advanced_index.h), then whole rows are gathered (optimized/operators/gather_op.h).
// Masks, several index tensors and inner dims are the portable kernel's.
#include "optimized/operators/gather_op.h"
#include "sb/kernel.h"
#include "util/advanced_index.h"
#include "util/shape.h"

namespace sb::kernels {
extern const KernelDef index_Tensor_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::index.Tensor_out";

Error opt_index_out_impl(KernelContext& ctx, Args args) {
  const Tensor& self = *args[0]->as_tensor;
  const Span<Tensor* const> indices = args[1]->as_tensor_list;
  Tensor& out = *args[2]->as_tensor;
  bool rows = self.dim >= 1 && indices.size() >= 1 && indices[0] != nullptr && out.dtype == self.dtype &&
              (indices[0]->dtype == ScalarType::kLong || indices[0]->dtype == ScalarType::kInt);
  for (size_t i = 1; rows && i < indices.size(); ++i) rows = indices[i] == nullptr;
  if (!rows) return kernels::index_Tensor_out.fn(ctx, args);
  kernels::AdvancedIndex plan;
  Error err = kernels::plan_advanced_index(kOp, self, indices, &plan);  // index values checked in range
  if (!err.ok()) return err;
  if (!(err = kernels::resize_output(kOp, out, plan.out_sizes, plan.out_rank)).ok()) return err;
  const size_t row_bytes = static_cast<size_t>(kernels::size_product(self, 1, self.dim)) * element_size(self.dtype);
  gather_rows(self.data, self.sizes[0], row_bytes, *indices[0], 1, out.data);
  return Error();
}

}  // namespace

extern const KernelDef opt_index_Tensor_out{kOp, "TO|T", &opt_index_out_impl, {}};

}  // namespace sb::optimized
