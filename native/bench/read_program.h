// The probes' program reading, shared so that core_size_probe and
// baseline_probe differ only by the runtime. The buffer is allocated for the
// file's size rather than held in a static array: a static buffer would sit in
// .bss and be counted as the runtime's zero-initialised memory.
#pragma once
#include <cstdio>
#include <cstdlib>

namespace sb_probe {

constexpr long kMaxProgramBytes = 64L << 20;

// The whole file at `path` in a malloc'd buffer (caller frees), or nullptr.
inline unsigned char* read_program(const char* path, size_t* size) {
  FILE* f = fopen(path, "rb");
  if (f == nullptr) return nullptr;
  unsigned char* data = nullptr;
  long length = -1;
  if (fseek(f, 0, SEEK_END) == 0) length = ftell(f);
  if (length >= 0 && length <= kMaxProgramBytes && fseek(f, 0, SEEK_SET) == 0) {
    data = static_cast<unsigned char*>(malloc(length > 0 ? static_cast<size_t>(length) : 1));
    if (data != nullptr) *size = fread(data, 1, static_cast<size_t>(length), f);
  }
  fclose(f);
  return data;
}

}  // namespace sb_probe
