// ATen's MemoryFormat argument (clone, _to_copy, empty_like, ...): this runtime
// stores every tensor contiguous, so None and Contiguous are what it can honour.
#pragma once

#include "sb/error.h"
#include "sb/value.h"

namespace sb::kernels {

// c10::MemoryFormat, as a program stores it (an int).
enum class MemoryFormat : int64_t { kContiguous = 0, kPreserve = 1, kChannelsLast = 2, kChannelsLast3d = 3 };

// memory_format is None or an int (the signature's 'n' checked the tag).
inline Error check_contiguous_memory_format(const char* op, const Value& memory_format) {
  if (memory_format.is_none() || memory_format.as_int == static_cast<int64_t>(MemoryFormat::kContiguous)) {
    return Error();
  }
  return Error::make(ErrorCode::kNotSupported, "%s: only the contiguous memory format is supported (got %lld)", op,
                     static_cast<long long>(memory_format.as_int));
}

}  // namespace sb::kernels
