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
Error write_npy(const std::string& path, const Tensor& tensor);

}  // namespace sb::runner
