// xnnpack::static_slice.f32(Tensor input, int[] offsets, *, Tensor(a!) out)
// xnnpack::static_slice.f16 takes the same arguments on Half tensors (an fp16 program's), through the same code.
//
// XNNPACK's slice: the box of `out`'s shape at `offsets` of `input` (both contiguous, same rank).
#include <cstring>

#include "node.h"

namespace sb::xnnpack_nodes {
namespace {

Error static_slice_f32_impl(KernelContext& /*ctx*/, Args args) {
  const Tensor& in = *args[0]->as_tensor;
  const Tensor& out = *args[2]->as_tensor;
  const int64_t* offsets = args[1]->as_int_list.data();
  const int32_t rank = out.dim;
  if (rank == 0 || out.numel() == 0) return Error();
  int64_t in_strides[kMaxDims];
  in_strides[rank - 1] = 1;
  for (int32_t d = rank - 1; d > 0; --d) in_strides[d - 1] = in_strides[d] * in.sizes[d];
  const int64_t row = out.sizes[rank - 1];
  const size_t element = element_size(in.dtype);
  const uint8_t* src = static_cast<const uint8_t*>(in.data);
  uint8_t* dst = static_cast<uint8_t*>(out.data);
  int64_t index[kMaxDims] = {};
  for (int64_t rows = out.numel() / row; rows > 0; --rows) {
    int64_t at = offsets[rank - 1];
    for (int32_t d = 0; d < rank - 1; ++d) at += (offsets[d] + index[d]) * in_strides[d];
    memcpy(dst, src + at * static_cast<int64_t>(element), static_cast<size_t>(row) * element);
    dst += static_cast<size_t>(row) * element;
    for (int32_t d = rank - 2; d >= 0 && ++index[d] == out.sizes[d]; --d) index[d] = 0;
  }
  return Error();
}

}  // namespace

extern const KernelDef static_slice_f32{"xnnpack::static_slice.f32", "TI|T", &static_slice_f32_impl, {}};
extern const KernelDef static_slice_f16{"xnnpack::static_slice.f16", "TI|T", &static_slice_f32_impl, {}};

}  // namespace sb::xnnpack_nodes
