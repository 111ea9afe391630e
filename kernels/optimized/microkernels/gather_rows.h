// Row gathers by an index array (the index, index_select and embedding
// kernels): dtype-agnostic, by row size. Templates on the index type, so the
// op glue that picks Int or Long indices (optimized/operators/gather_op.cpp)
// compiles both loops where they are used.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace sb::optimized {

// Whether every idx[0 .. count) lies in [-rows, rows) (negative ones allowed when `negative`).
template <typename I>
bool all_indices_within(const I* idx, int64_t count, int64_t rows, bool negative) {
  const int64_t low = negative ? -rows : 0;
  for (int64_t i = 0; i < count; ++i) {
    if (idx[i] < low || idx[i] >= rows) return false;
  }
  return true;
}

// y row i = table row idx[i] for i < count (idx already checked to lie in
// [-rows, rows); negative ones count from the end), rows of `rb` bytes;
// `outer` blocks of `rows` table rows each gather the same indices.
template <typename I>
void copy_indexed_rows(const uint8_t* table, int64_t rows, size_t rb, const I* idx, int64_t count, int64_t outer,
                       uint8_t* y) {
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

}  // namespace sb::optimized
