// optimized/operators/gather_op.h: the index tensor's dtype picks the loop.
#include "optimized/operators/gather_op.h"

#include "optimized/microkernels/gather_rows.h"

namespace sb::optimized {

bool indices_within(const Tensor& index, int64_t rows, bool negative) {
  if (index.dtype == ScalarType::kLong) {
    return all_indices_within(index.data_as<const int64_t>(), index.numel(), rows, negative);
  }
  if (index.dtype == ScalarType::kInt) {
    return all_indices_within(index.data_as<const int32_t>(), index.numel(), rows, negative);
  }
  return false;
}

void gather_rows(const void* table, int64_t table_rows, size_t row_bytes, const Tensor& index, int64_t outer,
                 void* out) {
  const auto* t = static_cast<const uint8_t*>(table);
  auto* y = static_cast<uint8_t*>(out);
  if (index.dtype == ScalarType::kLong) {
    copy_indexed_rows(t, table_rows, row_bytes, index.data_as<const int64_t>(), index.numel(), outer, y);
  } else {
    copy_indexed_rows(t, table_rows, row_bytes, index.data_as<const int32_t>(), index.numel(), outer, y);
  }
}

}  // namespace sb::optimized
