#include "sb/scalar_type.h"
#include "sb/tensor.h"
#include "sb/value.h"

namespace sb {

const char* scalar_type_name(ScalarType t) {
  switch (t) {
    case ScalarType::kByte: return "uint8";
    case ScalarType::kChar: return "int8";
    case ScalarType::kShort: return "int16";
    case ScalarType::kInt: return "int32";
    case ScalarType::kLong: return "int64";
    case ScalarType::kHalf: return "float16";
    case ScalarType::kFloat: return "float32";
    case ScalarType::kDouble: return "float64";
    case ScalarType::kComplexHalf: return "complex32";
    case ScalarType::kComplexFloat: return "complex64";
    case ScalarType::kComplexDouble: return "complex128";
    case ScalarType::kBool: return "bool";
    case ScalarType::kBFloat16: return "bfloat16";
  }
  return "unknown";
}

const char* tag_name(Tag tag) {
  switch (tag) {
    case Tag::kNone: return "None";
    case Tag::kInt: return "int";
    case Tag::kDouble: return "double";
    case Tag::kBool: return "bool";
    case Tag::kString: return "string";
    case Tag::kTensor: return "tensor";
    case Tag::kIntList: return "int list";
    case Tag::kDoubleList: return "double list";
    case Tag::kBoolList: return "bool list";
    case Tag::kTensorList: return "tensor list";
    case Tag::kOptionalTensorList: return "optional tensor list";
  }
  return "unknown";
}

bool has_sizes(const Tensor& t, const int64_t* sizes, int32_t rank) {
  if (t.dim != rank) return false;
  for (int32_t i = 0; i < rank; ++i) {
    if (t.sizes[i] != sizes[i]) return false;
  }
  return true;
}

bool same_shape(const Tensor& a, const Tensor& b) { return has_sizes(a, b.sizes, b.dim); }

}  // namespace sb
