// Element types, numbered exactly as the .pte schema numbers them.
#pragma once

#include <cstddef>
#include <cstdint>

#include <type_traits>

#include "sb/half.h"

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
  kComplexHalf = 8,
  kComplexFloat = 9,
  kComplexDouble = 10,
  kBool = 11,
  kBFloat16 = 15,
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
    case ScalarType::kBFloat16:
      return 2;
    case ScalarType::kInt:
    case ScalarType::kFloat:
    case ScalarType::kComplexHalf:
      return 4;
    case ScalarType::kLong:
    case ScalarType::kDouble:
    case ScalarType::kComplexFloat:
      return 8;
    case ScalarType::kComplexDouble:
      return 16;
  }
  return 0;
}

const char* scalar_type_name(ScalarType t);

// A complex element as ExecuTorch stores it: the real part, then the
// imaginary part, each of type T (Half, float or double). A storage type:
// kernels read and write the two parts.
template <typename T>
struct Complex {
  T re;
  T im;
};

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
template <> struct ScalarTypeOf<Half> { static constexpr ScalarType value = ScalarType::kHalf; };
template <> struct ScalarTypeOf<BFloat16> { static constexpr ScalarType value = ScalarType::kBFloat16; };
template <> struct ScalarTypeOf<Complex<Half>> { static constexpr ScalarType value = ScalarType::kComplexHalf; };
template <> struct ScalarTypeOf<Complex<float>> { static constexpr ScalarType value = ScalarType::kComplexFloat; };
template <> struct ScalarTypeOf<Complex<double>> { static constexpr ScalarType value = ScalarType::kComplexDouble; };

// Floating types, including the 16-bit storage types (std::is_floating_point
// does not know those).
template <typename T>
constexpr bool is_floating_v = std::is_floating_point_v<T> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;
template <typename T>
constexpr bool is_complex_v = false;
template <typename T>
constexpr bool is_complex_v<Complex<T>> = true;
// Integer types, bool excluded.
template <typename T>
constexpr bool is_integer_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

constexpr bool is_floating_type(ScalarType t) {
  return t == ScalarType::kHalf || t == ScalarType::kFloat || t == ScalarType::kDouble || t == ScalarType::kBFloat16;
}
constexpr bool is_complex_type(ScalarType t) {
  return t == ScalarType::kComplexHalf || t == ScalarType::kComplexFloat || t == ScalarType::kComplexDouble;
}
constexpr bool is_integer_type(ScalarType t) {
  return t == ScalarType::kByte || t == ScalarType::kChar || t == ScalarType::kShort || t == ScalarType::kInt ||
         t == ScalarType::kLong;
}

}  // namespace sb
