// Reading a whole file that must be a regular file: the runner's model and
// inputs. A FIFO, a directory, a socket or a device is refused with one line,
// never waited on or read forever.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sb/error.h"

namespace sb::runner {

// Appends the file's bytes to `out`. `what` names the file in errors ("model", "input").
// The file is opened O_NONBLOCK (opening a FIFO never waits for a writer) and
// checked with fstat on the open descriptor, so a path swapped between a check
// and the open cannot make the read block either.
Error read_regular_file(const std::string& path, const char* what, std::vector<uint8_t>* out);

}  // namespace sb::runner
