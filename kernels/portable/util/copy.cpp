#include "util/copy.h"

#include <cstring>

#include "util/shape.h"
#include "util/strided.h"

namespace sb::kernels {

void strided_copy(const void* src, int64_t src_offset, const int64_t* src_strides, void* dst, const int64_t* sizes,
                  int32_t rank, size_t elem) {
  int64_t to_strides[kMaxWalkDims];  // contiguous; only `rank` of them are read
  row_major_strides(sizes, rank, to_strides);
  walk_copy_strides(src, src_offset, src_strides, dst, 0, to_strides, sizes, rank, elem);
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
