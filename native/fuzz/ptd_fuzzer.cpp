// libFuzzer target for the .ptd reader (sb/data_file.h), built with
// -DSB_FUZZ=ON (clang) under AddressSanitizer and UndefinedBehaviorSanitizer:
// each input is one data file. When it loads, every key is looked up and
// must give back its own entry (load() refuses a key held twice), every
// entry's bytes are read and must lie in the file, a tensor layout must fit
// its bytes, and each key cut by its last byte is looked up too (absent, or
// an entry of exactly that key). A broken promise traps, which libFuzzer
// reports as a crash.
//
// SB_FUZZ_REPORT=1 in the environment prints each input's outcome to stderr:
// "load: <error>", or "load: ok, <n> entries" and then one line per entry in
// file order, "entry <i>: '<key>' <bytes> <FNV-1a of the bytes, hex>", so a
// test can check that every lookup returns the right bytes.
#include <cinttypes>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "sb/checked.h"
#include "sb/data_file.h"
#include "sb/limits.h"
#include "sb/scalar_type.h"

namespace {

sb::RuntimeLimits fuzz_limits() {
  sb::RuntimeLimits limits;
  limits.memory_bytes = uint64_t{64} << 20;  // as pte_fuzzer's
  return limits;
}

void check(bool promise) {
  if (!promise) __builtin_trap();
}

bool same(sb::Span<const char> a, sb::Span<const char> b) {
  return a.size() == b.size() && (a.empty() || memcmp(a.data(), b.data(), a.size()) == 0);
}

uint64_t fnv1a(sb::Span<const uint8_t> bytes) {
  uint64_t h = 0xcbf29ce484222325u;
  for (const uint8_t b : bytes) h = (h ^ b) * 0x100000001b3u;
  return h;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The reader takes bytes aligned as malloc aligns them; libFuzzer's need not be. Exactly `size` bytes,
  // so AddressSanitizer sees a read past the end.
  uint8_t* bytes = static_cast<uint8_t*>(malloc(size == 0 ? 1 : size));
  if (bytes == nullptr) return 0;
  if (size != 0) memcpy(bytes, data, size);
  static const bool report = getenv("SB_FUZZ_REPORT") != nullptr;
  {
    sb::Result<sb::DataFile> file = sb::DataFile::load(bytes, size, "fuzz", fuzz_limits());
    if (report) {
      if (file.ok()) {
        fprintf(stderr, "load: ok, %zu entries\n", file.value.size());
      } else {
        fprintf(stderr, "load: %s\n", file.error.message());
      }
    }
    const sb::DataFile& f = file.value;
    for (size_t i = 0; file.ok() && i < f.size(); ++i) {
      const sb::Span<const char> key = f.key(i);
      const int64_t at = f.find(key);
      check(at == static_cast<int64_t>(i));
      if (!key.empty()) {
        const sb::Span<const char> cut(key.data(), key.size() - 1);
        const int64_t found = f.find(cut);
        check(found < 0 || same(f.key(static_cast<size_t>(found)), cut));
      }
      const sb::DataEntry e = f.entry(static_cast<size_t>(at));
      if (!e.bytes.empty()) check(f.holds(e.bytes.data()) && f.holds(e.bytes.data() + e.bytes.size() - 1));
      if (e.has_layout) {
        check(e.dim >= 0 && e.dim <= sb::kMaxDims);
        check(sb::sat_mul(sb::shape_numel(e.sizes, e.dim), sb::element_size(e.dtype)) <= e.bytes.size());
      }
      const uint64_t hash = fnv1a(e.bytes);  // reads every byte
      if (report) {
        char shown[80];
        sb::format_key(shown, sizeof shown, key);
        fprintf(stderr, "entry %zu: '%s' %zu %016" PRIx64 "\n", i, shown, e.bytes.size(), hash);
      }
    }
  }
  free(bytes);
  return 0;
}
