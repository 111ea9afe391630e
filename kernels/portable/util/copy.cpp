#include "util/copy.h"

#include <cstring>

#include "util/shape.h"

namespace sb::kernels {

void strided_copy(const void* src, int64_t src_offset, const int64_t* src_strides, void* dst, const int64_t* sizes,
                  int32_t rank, size_t elem) {
  int64_t total = 1;
  for (int32_t d = 0; d < rank; ++d) total *= sizes[d];
  if (total == 0) return;
  const auto* from = static_cast<const uint8_t*>(src);
  auto* to = static_cast<uint8_t*>(dst);
  int64_t coord[kMaxDims] = {};
  int64_t offset = src_offset;
  // Rows along the last dim are contiguous in dst; copy a run when the
  // source is contiguous along it too.
  const int64_t row = rank > 0 ? sizes[rank - 1] : 1;
  const int64_t step = rank > 0 ? src_strides[rank - 1] : 1;
  for (int64_t done = 0; done < total; done += row) {
    if (step == 1) {
      memcpy(to + done * elem, from + offset * elem, static_cast<size_t>(row) * elem);
    } else {
      for (int64_t j = 0; j < row; ++j) memcpy(to + (done + j) * elem, from + (offset + j * step) * elem, elem);
    }
    // Advance the odometer over all but the last dim.
    for (int32_t d = rank - 2; d >= 0; --d) {
      offset += src_strides[d];
      if (++coord[d] < sizes[d]) break;
      offset -= coord[d] * src_strides[d];
      coord[d] = 0;
    }
  }
}

Error copy_like(const char* op, const Tensor& in, Tensor& out) {
  Error err = resize_output_like(op, out, in);
  if (!err.ok()) return err;
  return copy_same_numel(op, in, out);
}

Error copy_same_numel(const char* op, const Tensor& in, const Tensor& out) {
  Error err = check_same_numel(op, out, in);
  if (!err.ok()) return err;
  if (!(err = check_dtype(op, "self", in, out.dtype)).ok()) return err;
  if (out.data != in.data && out.nbytes() != 0) memmove(out.data, in.data, out.nbytes());
  return Error();
}

}  // namespace sb::kernels
