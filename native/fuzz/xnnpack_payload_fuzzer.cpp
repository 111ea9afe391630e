// libFuzzer target for the XNNPACK payload parser and planner, built with
// -DSB_FUZZ=ON (clang) under AddressSanitizer and UndefinedBehaviorSanitizer:
// each input is one XNNPACK delegate payload (XNNHeader, XNNGraph flatbuffer,
// constant data), handed to XnnpackBackend's init() as a method's loader
// would, but with no program around it: its named data is empty, so a graph
// whose constants name keys fails there, and seeds keep their constants in the
// payload's own constant data instead (tests/test_native_xnnpack_hostile.py
// writes them). Load only: init() parses the graph and compiles its plan.
//
// SB_FUZZ_REPORT=1 in the environment prints each input's outcome ("init: ok"
// or "init: <error>") to stderr, so a test can see how deep its seeds parse.
//
// The init memory comes from malloc, within a budget, and is freed after each
// input, as a method frees its delegates' memory when it is released.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "sb/backend.h"
#include "sb/registry.h"

namespace sb::xnnpack {
extern const Backend backend;
}

namespace {

constexpr uint64_t kBudget = uint64_t{64} << 20;  // as pte_fuzzer's method budget
constexpr uint64_t kAlignment = 16;

struct Arena {
  std::vector<void*> blocks;
  uint64_t used = 0;

  ~Arena() {
    for (void* block : blocks) free(block);
  }

  static sb::Error allocate(void* owner, uint64_t bytes, const char* what, void** out) {
    Arena& self = *static_cast<Arena*>(owner);
    if (bytes > kBudget - self.used) {
      return sb::Error::make(sb::ErrorCode::kOutOfMemory, "fuzz budget exceeded by %s", what);
    }
    const size_t rounded = static_cast<size_t>((bytes + kAlignment - 1) / kAlignment * kAlignment);
    void* block = aligned_alloc(kAlignment, rounded == 0 ? kAlignment : rounded);
    if (block == nullptr) return sb::Error::make(sb::ErrorCode::kOutOfMemory, "malloc failed for %s", what);
    memset(block, 0, rounded);
    self.blocks.push_back(block);
    self.used += bytes;
    *out = block;
    return sb::Error();
  }
};

const sb::OpRegistry& registry() {
  static sb::OpRegistry instance;
  static const bool registered = sb::register_kernels(instance).ok();
  (void)registered;
  return instance;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Arena arena;
  sb::BackendInitContext context(&Arena::allocate, &arena, registry(), /*program=*/nullptr, "forward",
                                 sb::xnnpack::backend.id, 0);
  const sb::BackendInterface& backend = *sb::xnnpack::backend.backend;
  sb::Result<void*> handle = backend.init(context, sb::Span<const uint8_t>(data, size), sb::Span<const sb::CompileSpec>());
  static const bool report = getenv("SB_FUZZ_REPORT") != nullptr;
  if (report) fprintf(stderr, "init: %s\n", handle.ok() ? "ok" : handle.error.message());
  if (handle.ok()) backend.destroy(handle.value);  // errors are fine; crashes and sanitizer reports are not
  return 0;
}
