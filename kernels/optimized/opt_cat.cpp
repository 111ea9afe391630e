// aten::cat.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out)
//
// Fast path: every input of out's dtype and rank: each contributes one
// contiguous block per outer index (counted in memory order, so any dim order
// every tensor shares), copied by memcpy. Conversions, ATen's legacy empty
// [0] inputs and arguments the portable kernel refuses go to it.
#include <cstring>

#include "sb/kernel.h"
#include "util/shape.h"

namespace sb::kernels {
extern const KernelDef cat_out;
}  // namespace sb::kernels

namespace sb::optimized {
namespace {

constexpr char kOp[] = "aten::cat.out";

// Elements of t per index of the memory-order dims before position `at`.
int64_t block_elems(const Tensor& t, int32_t at) {
  int64_t n = 1;
  for (int32_t i = at; i < t.dim; ++i) n *= t.sizes[t.dim_order[i]];
  return n;
}

Error opt_cat_out_impl(KernelContext& ctx, Args args) {
  const Span<Tensor* const> tensors = args[0]->as_tensor_list;
  Tensor& out = *args[2]->as_tensor;
  const int64_t dim = args[1]->as_int < 0 ? args[1]->as_int + out.dim : args[1]->as_int;
  bool fast = !tensors.empty() && dim >= 0 && dim < out.dim;
  int64_t sizes[kMaxDims];
  for (int32_t d = 0; fast && d < out.dim; ++d) sizes[d] = d == dim ? 0 : tensors[0]->sizes[d];
  for (size_t i = 0; fast && i < tensors.size(); ++i) {
    const Tensor& t = *tensors[i];
    fast = t.dtype == out.dtype && t.dim == out.dim && t.data != out.data &&
           !__builtin_add_overflow(sizes[dim], t.sizes[dim], &sizes[dim]);
    for (int32_t d = 0; fast && d < out.dim; ++d) fast = d == dim || t.sizes[d] == sizes[d];
  }
  if (!fast) return kernels::cat_out.fn(ctx, args);
  Error err = kernels::resize_output(kOp, out, sizes, out.dim);
  if (!err.ok()) return err;
  int32_t at = 0;
  while (out.dim_order[at] != dim) ++at;
  const int64_t outer = out.numel() == 0 ? 0 : out.numel() / block_elems(out, at);
  const size_t elem = element_size(out.dtype);
  const size_t out_block = static_cast<size_t>(block_elems(out, at)) * elem;
  auto* y = static_cast<uint8_t*>(out.data);
  for (const Tensor* t : tensors) {
    const size_t block = static_cast<size_t>(block_elems(*t, at)) * elem;
    const auto* x = static_cast<const uint8_t*>(t->data);
    for (int64_t o = 0; o < outer; ++o) memcpy(y + o * out_block, x + o * block, block);
    y += block;
  }
  return Error();
}

}  // namespace

// Memory-order blocks: any dim order shared by every tensor.
extern const KernelDef opt_cat_out{kOp, "Li|T", &opt_cat_out_impl, {}, LayoutPolicy::kSameDimOrder};

}  // namespace sb::optimized
