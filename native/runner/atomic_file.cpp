#include "atomic_file.h"

#include <cstdio>

namespace sb::runner {

Error write_file_atomic(const std::string& path, const std::vector<std::string_view>& parts) {
  const std::string tmp = path + ".tmp";
  FILE* f = fopen(tmp.c_str(), "wb");
  if (f == nullptr) return Error::make(ErrorCode::kInvalidArgument, "%s: cannot create file", path.c_str());
  bool ok = true;
  for (std::string_view part : parts) ok = ok && (part.empty() || fwrite(part.data(), 1, part.size(), f) == part.size());
  ok = (fclose(f) == 0) && ok;
  if (!ok || rename(tmp.c_str(), path.c_str()) != 0) {
    remove(tmp.c_str());
    return Error::make(ErrorCode::kInvalidArgument, "%s: write failed (disk full?)", path.c_str());
  }
  return Error();
}

}  // namespace sb::runner
