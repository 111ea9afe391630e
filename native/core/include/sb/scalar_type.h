// Element types, numbered exactly as the .pte schema numbers them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sb {

enum class ScalarType : int8_t {
  kByte = 0,
  kChar = 1,
  kShort = 2,
  kInt = 3,
  kLong = 4,
  kHalf = 5,
  kFloat = 6,
  kDouble = 7,
  kBool = 11,
};

// 0 for types the runtime cannot hold (the loader rejects those tensors).
constexpr size_t element_size(ScalarType t) {
  switch (t) {
    case ScalarType::kByte:
    case ScalarType::kChar:
    case ScalarType::kBool:
      return 1;
    case ScalarType::kShort:
    case ScalarType::kHalf:
      return 2;
    case ScalarType::kInt:
    case ScalarType::kFloat:
      return 4;
    case ScalarType::kLong:
    case ScalarType::kDouble:
      return 8;
  }
  return 0;
}

const char* scalar_type_name(ScalarType t);

// Maps a C++ element type to its ScalarType, for kernels' typed access.
template <typename T> struct ScalarTypeOf;
template <> struct ScalarTypeOf<uint8_t> { static constexpr ScalarType value = ScalarType::kByte; };
template <> struct ScalarTypeOf<int8_t> { static constexpr ScalarType value = ScalarType::kChar; };
template <> struct ScalarTypeOf<int16_t> { static constexpr ScalarType value = ScalarType::kShort; };
template <> struct ScalarTypeOf<int32_t> { static constexpr ScalarType value = ScalarType::kInt; };
template <> struct ScalarTypeOf<int64_t> { static constexpr ScalarType value = ScalarType::kLong; };
template <> struct ScalarTypeOf<float> { static constexpr ScalarType value = ScalarType::kFloat; };
template <> struct ScalarTypeOf<double> { static constexpr ScalarType value = ScalarType::kDouble; };
template <> struct ScalarTypeOf<bool> { static constexpr ScalarType value = ScalarType::kBool; };

}  // namespace sb
