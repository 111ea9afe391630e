#include "regular_file.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

namespace sb::runner {
namespace {

const char* kind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a file";
}

}  // namespace

Error read_regular_file(const std::string& path, const char* what, std::vector<uint8_t>* out) {
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    return Error::make(ErrorCode::kInvalidArgument, "%s: cannot open %s file (%s)", path.c_str(), what,
                       strerror(err));
  }
  struct stat info;
  if (fstat(fd, &info) != 0) {
    const int err = errno;
    close(fd);
    return Error::make(ErrorCode::kInvalidArgument, "%s: cannot read %s file (%s)", path.c_str(), what,
                       strerror(err));
  }
  if (!S_ISREG(info.st_mode)) {
    close(fd);
    return Error::make(ErrorCode::kInvalidArgument, "%s: %s file is not a regular file (%s)", path.c_str(), what,
                       kind(info.st_mode));
  }
  uint8_t chunk[65536];
  for (;;) {
    const ssize_t n = read(fd, chunk, sizeof chunk);
    if (n > 0) {
      out->insert(out->end(), chunk, chunk + n);
    } else if (n == 0) {
      break;
    } else if (errno != EINTR) {
      const int err = errno;
      close(fd);
      return Error::make(ErrorCode::kInvalidArgument, "%s: read error in %s file (%s)", path.c_str(), what,
                         strerror(err));
    }
  }
  close(fd);
  return Error();
}

}  // namespace sb::runner
