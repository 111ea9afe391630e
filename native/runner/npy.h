// Reading and writing NumPy .npy files (format versions 1-3, C order) for
// the runner's inputs and outputs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sb/error.h"
#include "sb/tensor.h"

namespace sb::runner {

struct NpyArray {
  Tensor tensor;               // data points into `bytes`
  std::vector<uint8_t> bytes;  // owns the element data
};

// Fails with a one-line message naming the file on any malformed input.
Error read_npy(const std::string& path, NpyArray* out);
// NumPy has no bfloat16: a BFloat16 tensor is written as float32 (an exact
// widening), and a BFloat16 input may be given as float32 whose values are
// all exactly representable (anything else is refused).
Error write_npy(const std::string& path, const Tensor& tensor);

// Converts `array` in place to the dtype `expected` where the convention
// above allows it (float32 -> bfloat16); leaves it alone otherwise.
Error adapt_npy_input(const std::string& path, ScalarType expected, NpyArray* array);

}  // namespace sb::runner
