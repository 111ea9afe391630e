#include "util/strided.h"

#include <cstring>

#include "sb/checked.h"
#include "util/shape.h"

namespace sb::kernels {
namespace {

// One row along the last dim; `elem` is a compile-time size where it matters.
// A zero source step (broadcast) reads its one element once.
template <size_t Elem>
void copy_row(const uint8_t* from, int64_t from_step, uint8_t* to, int64_t to_step, int64_t n) {
  if (from_step == 0) {
    uint8_t v[Elem];
    memcpy(v, from, Elem);
    for (int64_t j = 0; j < n; ++j) memcpy(to + j * to_step * static_cast<int64_t>(Elem), v, Elem);
    return;
  }
  for (int64_t j = 0; j < n; ++j) memcpy(to + j * to_step * Elem, from + j * from_step * Elem, Elem);
}

}  // namespace

void copy_row_any(const uint8_t* from, int64_t from_step, uint8_t* to, int64_t to_step, int64_t n, size_t elem) {
  if (from_step == 1 && to_step == 1) {
    memcpy(to, from, static_cast<size_t>(n) * elem);
    return;
  }
  switch (elem) {
    case 1: return copy_row<1>(from, from_step, to, to_step, n);
    case 2: return copy_row<2>(from, from_step, to, to_step, n);
    case 4: return copy_row<4>(from, from_step, to, to_step, n);
    case 8: return copy_row<8>(from, from_step, to, to_step, n);
    default:
      for (int64_t j = 0; j < n; ++j) {
        memcpy(to + j * to_step * static_cast<int64_t>(elem), from + j * from_step * static_cast<int64_t>(elem), elem);
      }
  }
}

void row_major_strides(const int64_t* sizes, int32_t rank, int64_t* strides) {
  int64_t s = 1;
  for (int32_t d = rank - 1; d >= 0; --d) {
    strides[d] = s;
    s *= sizes[d];
  }
}

Layout contiguous_layout(const int64_t* sizes, int32_t rank) {
  Layout l;
  row_major_strides(sizes, rank, l.strides);
  return l;
}

Layout layout_of(const Tensor& t) { return contiguous_layout(t.sizes, t.dim); }

void walk_copy(const void* src, const Layout& from, void* dst, const Layout& to, const int64_t* sizes, int32_t rank,
               size_t elem) {
  walk_copy_strides(src, from.offset, from.strides, dst, to.offset, to.strides, sizes, rank, elem);
}

void walk_copy_strides(const void* src, int64_t from_offset, const int64_t* from_strides, void* dst, int64_t to_offset,
                       const int64_t* to_strides, const int64_t* sizes, int32_t rank, size_t elem) {
  for (int32_t d = 0; d < rank; ++d) {
    if (sizes[d] == 0) return;
  }
  // Size-1 dims dropped, and each dim merged into the one inside it when both
  // sides step over it as one run: the rows the walk copies get as long as the
  // layouts allow (a slice, split or cat of whole inner blocks is a few memcpys).
  int64_t size[kMaxWalkDims];
  int64_t coord[kMaxWalkDims];  // the odometer, zeroed up to `dims` (no 128-byte clear per call)
  int64_t from_stride[kMaxWalkDims];
  int64_t to_stride[kMaxWalkDims];
  int32_t dims = 0;
  for (int32_t d = 0; d < rank; ++d) {
    if (sizes[d] == 1) continue;
    if (dims > 0 && from_stride[dims - 1] == from_strides[d] * sizes[d] &&
        to_stride[dims - 1] == to_strides[d] * sizes[d]) {
      size[dims - 1] *= sizes[d];
      from_stride[dims - 1] = from_strides[d];
      to_stride[dims - 1] = to_strides[d];
      continue;
    }
    size[dims] = sizes[d];
    from_stride[dims] = from_strides[d];
    to_stride[dims] = to_strides[d];
    coord[dims] = 0;
    ++dims;
  }
  const auto* in = static_cast<const uint8_t*>(src);
  auto* out = static_cast<uint8_t*>(dst);
  const int64_t e = static_cast<int64_t>(elem);
  const int64_t row = dims > 0 ? size[dims - 1] : 1;
  const int64_t from_step = dims > 0 ? from_stride[dims - 1] : 1;
  const int64_t to_step = dims > 0 ? to_stride[dims - 1] : 1;
  int64_t from_at = from_offset;
  int64_t to_at = to_offset;
  for (;;) {
    copy_row_any(in + from_at * e, from_step, out + to_at * e, to_step, row, elem);
    // Odometer over all but the last dim.
    int32_t d = dims - 2;
    for (; d >= 0; --d) {
      from_at += from_stride[d];
      to_at += to_stride[d];
      if (++coord[d] < size[d]) break;
      from_at -= coord[d] * from_stride[d];
      to_at -= coord[d] * to_stride[d];
      coord[d] = 0;
    }
    if (d < 0) return;
  }
}

bool layout_within(const Layout& layout, const int64_t* sizes, int32_t rank, int64_t numel) {
  // The lowest and highest element addressed, with saturating arithmetic on
  // magnitudes: any overflow is out of range.
  uint64_t low = 0;   // how far below `offset` the walk reaches
  uint64_t high = 0;  // how far above
  for (int32_t d = 0; d < rank; ++d) {
    if (sizes[d] == 0) return true;
    if (sizes[d] < 0) return false;
    const int64_t s = layout.strides[d];
    const uint64_t mag = s < 0 ? 0 - static_cast<uint64_t>(s) : static_cast<uint64_t>(s);
    const uint64_t reach = sat_mul(mag, static_cast<uint64_t>(sizes[d] - 1));
    if (s < 0) {
      low = sat_add(low, reach);
    } else {
      high = sat_add(high, reach);
    }
  }
  if (layout.offset < 0 || numel <= 0) return false;
  const uint64_t off = static_cast<uint64_t>(layout.offset);
  return low <= off && sat_add(off, high) < static_cast<uint64_t>(numel);
}

Error copy_view(const char* op, const Tensor& self, const Layout& from, const int64_t* sizes, int32_t rank,
                Tensor& out) {
  if (rank > kMaxDims) return Error::make(ErrorCode::kInvalidArgument, "%s: out would have %d dims", op, static_cast<int>(rank));
  Error err = check_dtype(op, "out", out, self.dtype);
  if (!err.ok()) return err;
  if (!(err = resize_output(op, out, sizes, rank)).ok()) return err;
  walk_copy(self.data, from, out.data, contiguous_layout(sizes, rank), sizes, rank, element_size(self.dtype));
  return Error();
}

}  // namespace sb::kernels
