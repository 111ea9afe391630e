// Writing a file all at once or not at all: the data goes to a temporary file
// that is renamed over the target only when every write succeeded.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sb/error.h"

namespace sb::runner {

Error write_file_atomic(const std::string& path, const std::vector<std::string_view>& parts);

}  // namespace sb::runner
