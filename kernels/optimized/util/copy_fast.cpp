#include "optimized/util/copy_fast.h"

#if defined(__GNUC__) && !defined(__clang__)
// Data movement is memcpy calls and short loops over dims: -O3's vectorized
// and unrolled copies of those loops only add bytes (util/copy_fast.h).
#pragma GCC optimize("O2")
#endif
#include <cstring>

namespace sb::optimized {
namespace {

// n elements of E bytes, stepping ss and ds elements (ss 0: one value repeated).
template <size_t E>
void strided_row(const uint8_t* s, int64_t ss, uint8_t* d, int64_t ds, int64_t n) {
  if (ss == 0) {
    uint8_t v[E];
    memcpy(v, s, E);
    for (int64_t j = 0; j < n; ++j) memcpy(d + j * ds * static_cast<int64_t>(E), v, E);
    return;
  }
  for (int64_t j = 0; j < n; ++j) {
    memcpy(d + j * ds * static_cast<int64_t>(E), s + j * ss * static_cast<int64_t>(E), E);
  }
}

void copy_row(const uint8_t* s, int64_t ss, uint8_t* d, int64_t ds, int64_t n, size_t elem) {
  if (ss == 1 && ds == 1) {
    memcpy(d, s, static_cast<size_t>(n) * elem);
    return;
  }
  switch (elem) {
    case 1: return strided_row<1>(s, ss, d, ds, n);
    case 2: return strided_row<2>(s, ss, d, ds, n);
    case 4: return strided_row<4>(s, ss, d, ds, n);
    case 8: return strided_row<8>(s, ss, d, ds, n);
    default: {
      const int64_t e = static_cast<int64_t>(elem);
      for (int64_t j = 0; j < n; ++j) memcpy(d + j * ds * e, s + j * ss * e, elem);
    }
  }
}

template <typename I>
bool within(const I* idx, int64_t count, int64_t rows, bool negative) {
  const int64_t low = negative ? -rows : 0;
  for (int64_t i = 0; i < count; ++i) {
    if (idx[i] < low || idx[i] >= rows) return false;
  }
  return true;
}

template <typename I>
void gather(const uint8_t* table, int64_t rows, size_t rb, const I* idx, int64_t count, int64_t outer, uint8_t* y) {
  for (int64_t o = 0; o < outer; ++o, table += rows * static_cast<int64_t>(rb)) {
    for (int64_t i = 0; i < count; ++i, y += rb) {
      const int64_t r = idx[i] < 0 ? idx[i] + rows : idx[i];
      const uint8_t* from = table + r * static_cast<int64_t>(rb);
      // The short rows of index tables (a few floats) go without a memcpy call.
      if (rb == 8) {
        memcpy(y, from, 8);
      } else if (rb == 4) {
        memcpy(y, from, 4);
      } else {
        memcpy(y, from, rb);
      }
    }
  }
}

}  // namespace

void row_major_strides(const int64_t* sizes, int32_t rank, int64_t* strides) {
  int64_t s = 1;
  for (int32_t d = rank - 1; d >= 0; --d) {
    strides[d] = s;
    s *= sizes[d];
  }
}

void copy_box(const void* src, const int64_t* src_strides, void* dst, const int64_t* dst_strides,
              const int64_t* sizes, int32_t rank, size_t elem) {
  int64_t size[kMaxDims];
  int64_t from[kMaxDims];
  int64_t to[kMaxDims];
  int32_t dims = 0;
  for (int32_t d = 0; d < rank; ++d) {
    if (sizes[d] == 0) return;
    if (sizes[d] == 1) continue;
    if (dims > 0 && from[dims - 1] == src_strides[d] * sizes[d] && to[dims - 1] == dst_strides[d] * sizes[d]) {
      size[dims - 1] *= sizes[d];
      from[dims - 1] = src_strides[d];
      to[dims - 1] = dst_strides[d];
      continue;
    }
    size[dims] = sizes[d];
    from[dims] = src_strides[d];
    to[dims] = dst_strides[d];
    ++dims;
  }
  const auto* in = static_cast<const uint8_t*>(src);
  auto* out = static_cast<uint8_t*>(dst);
  if (dims == 0) {
    memcpy(out, in, elem);
    return;
  }
  const int64_t e = static_cast<int64_t>(elem);
  const int64_t row = size[dims - 1];
  int64_t coord[kMaxDims] = {};
  for (;;) {
    copy_row(in, from[dims - 1], out, to[dims - 1], row, elem);
    int32_t d = dims - 2;
    for (; d >= 0; --d) {
      in += from[d] * e;
      out += to[d] * e;
      if (++coord[d] < size[d]) break;
      in -= coord[d] * from[d] * e;
      out -= coord[d] * to[d] * e;
      coord[d] = 0;
    }
    if (d < 0) return;
  }
}

void copy_to_contiguous(const void* src, const int64_t* src_strides, void* dst, const int64_t* sizes, int32_t rank,
                        size_t elem) {
  int64_t strides[kMaxDims];
  row_major_strides(sizes, rank, strides);
  copy_box(src, src_strides, dst, strides, sizes, rank, elem);
}

bool indices_within(const Tensor& index, int64_t rows, bool negative) {
  if (index.dtype == ScalarType::kLong) return within(index.data_as<const int64_t>(), index.numel(), rows, negative);
  if (index.dtype == ScalarType::kInt) return within(index.data_as<const int32_t>(), index.numel(), rows, negative);
  return false;
}

void gather_rows(const void* table, int64_t table_rows, size_t row_bytes, const Tensor& index, int64_t outer,
                 void* out) {
  const auto* t = static_cast<const uint8_t*>(table);
  auto* y = static_cast<uint8_t*>(out);
  if (index.dtype == ScalarType::kLong) {
    gather(t, table_rows, row_bytes, index.data_as<const int64_t>(), index.numel(), outer, y);
  } else {
    gather(t, table_rows, row_bytes, index.data_as<const int32_t>(), index.numel(), outer, y);
  }
}

}  // namespace sb::optimized
