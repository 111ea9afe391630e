// aten::cat.out(Tensor[] tensors, int dim=0, *, Tensor(a!) out)
#include <cstring>

#include "sb/kernel.h"
#include "util/promote.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

constexpr char kOp[] = "aten::cat.out";

// block_elems elements of t per outer index, converted to out's dtype, into
// out at element offset `at` of each out block of out_block elements.
Error convert_blocks(const Tensor& t, const Tensor& out, int64_t outer, int64_t block_elems, int64_t out_block,
                     int64_t at) {
  return switch_dtype<kOp, kRealHBBF16>(out.dtype, [&](auto zero) {
    using O = decltype(zero);
    LoadFn<O> load = nullptr;
    Error err = get_load<kOp, kRealHBBF16, O>(t, &load);
    if (!err.ok()) return err;
    O* y = out.data_as<O>();
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t j = 0; j < block_elems; ++j) y[o * out_block + at + j] = load(t.data, o * block_elems + j);
    }
    return Error();
  });
}

// Product of t's sizes over the dims at memory positions [begin, end).
int64_t memory_product(const Tensor& t, int32_t begin, int32_t end) {
  int64_t n = 1;
  for (int32_t i = begin; i < end; ++i) n *= t.sizes[t.dim_order[i]];
  return n;
}

// ATen skips legacy empty 1-D inputs of shape [0] whatever the other ranks.
bool skipped(const Tensor& t) { return t.dim == 1 && t.sizes[0] == 0; }

Error cat_out_impl(KernelContext& /*ctx*/, Args args) {
  const Span<Tensor* const> tensors = args[0]->as_tensor_list;
  Tensor& out = *args[2]->as_tensor;
  // Out's shape is the first (non-skipped) input's, joined along dim.
  const Tensor* ref = nullptr;
  for (const Tensor* t : tensors) {
    if (ref == nullptr && !skipped(*t)) ref = t;
  }
  if (ref == nullptr) {
    const int64_t empty = 0;
    return resize_output(kOp, out, &empty, 1);
  }
  if (ref->dim == 0) return Error::make(ErrorCode::kInvalidArgument, "%s: inputs cannot be 0-d", kOp);
  int32_t dim = 0;
  Error err = normalize_dim(kOp, args[1]->as_int, ref->dim, &dim);
  if (!err.ok()) return err;
  int64_t joined = 0;
  for (const Tensor* t : tensors) {
    if (skipped(*t)) continue;
    if (t->dim != ref->dim) return Error::make(ErrorCode::kInvalidArgument, "%s: inputs differ in rank", kOp);
    for (int32_t d = 0; d < ref->dim; ++d) {
      if (d != dim && t->sizes[d] != ref->sizes[d]) {
        return Error::make(ErrorCode::kInvalidArgument, "%s: inputs differ in size in dim %d", kOp, static_cast<int>(d));
      }
    }
    // Inputs of other dtypes are converted to out's, when ATen allows the cast;
    // complex tensors join only tensors of their own dtype (ExecuTorch's rule).
    if ((is_complex_type(t->dtype) || is_complex_type(out.dtype)) && t->dtype != out.dtype) {
      return Error::make(ErrorCode::kInvalidArgument, "%s: a complex cat needs every input of out's dtype %s, not %s",
                         kOp, scalar_type_name(out.dtype), scalar_type_name(t->dtype));
    }
    if (!(err = check_can_cast(kOp, t->dtype, out)).ok()) return err;
    if (__builtin_add_overflow(joined, t->sizes[dim], &joined)) {
      return Error::make(ErrorCode::kInvalidArgument, "%s: inputs join to more elements than fit", kOp);
    }
  }
  int64_t sizes[kMaxDims];
  for (int32_t d = 0; d < ref->dim; ++d) sizes[d] = d == dim ? joined : ref->sizes[d];
  if (!(err = resize_output(kOp, out, sizes, ref->dim)).ok()) return err;
  // Each input contributes one contiguous block per outer index. All tensors
  // share one dim order (the loader checked): blocks are counted over the
  // dims in memory order, from where `dim` sits in it.
  int32_t at = 0;
  while (out.dim_order[at] != dim) ++at;
  const int64_t outer = memory_product(out, 0, at);
  const size_t elem = element_size(out.dtype);
  const size_t out_block = static_cast<size_t>(memory_product(out, at, out.dim)) * elem;
  size_t offset = 0;
  for (const Tensor* t : tensors) {
    if (skipped(*t)) continue;
    const size_t block = static_cast<size_t>(memory_product(*t, at, t->dim)) * elem;
    if (t->dtype != out.dtype) {
      err = convert_blocks(*t, out, outer, static_cast<int64_t>(block / elem), static_cast<int64_t>(out_block / elem),
                           static_cast<int64_t>(offset / elem));
      if (!err.ok()) return err;
      offset += block;
      continue;
    }
    for (int64_t o = 0; o < outer; ++o) {
      memcpy(static_cast<uint8_t*>(out.data) + o * out_block + offset,
             static_cast<const uint8_t*>(t->data) + o * block, block);
    }
    offset += block;
  }
  return Error();
}

}  // namespace

// Memory-order blocks: any dim order shared by every tensor.
extern const KernelDef cat_out{kOp, "Li|T", &cat_out_impl, {}, LayoutPolicy::kSameDimOrder};

}  // namespace sb::kernels
