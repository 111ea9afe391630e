// Runs a delegated program with the payload-inspecting test backend
// (payload_inspector.h) registered as "XnnpackBackend", so tests can see what
// reaches a backend's init() and execute().
//
//   delegate_test [--no-backend] [--max-memory BYTES] [--output-dir D] M.pte
//
// Prints the inspector's "init ..." lines while loading, its "execute ..."
// lines after the run, then "allocations_during_execute=N" (malloc is
// interposed while execute() runs; not under AddressSanitizer) and
// "memory_bytes=N". Inputs are ones; outputs go to D/output<i>.npy. Any
// error: one "error: ..." line on stderr, exit 1.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <sys/stat.h>

#include "npy.h"
#include "payload_inspector.h"
#include "sb/backend.h"
#include "sb/method.h"
#include "sb/program.h"
#include "sb/registry.h"

// The allocation counter interposes malloc, which AddressSanitizer owns: the
// sanitized build counts nothing (and says so).
#if defined(__SANITIZE_ADDRESS__)
#define SB_COUNT_ALLOCATIONS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SB_COUNT_ALLOCATIONS 0
#endif
#endif
#ifndef SB_COUNT_ALLOCATIONS
#define SB_COUNT_ALLOCATIONS 1
#endif

static bool g_counting = false;
static size_t g_allocations = 0;

#if SB_COUNT_ALLOCATIONS
extern "C" {
void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void* __libc_memalign(size_t, size_t);

void* malloc(size_t n) {
  if (g_counting) ++g_allocations;
  return __libc_malloc(n);
}
void* calloc(size_t n, size_t size) {
  if (g_counting) ++g_allocations;
  return __libc_calloc(n, size);
}
void* realloc(void* p, size_t n) {
  if (g_counting) ++g_allocations;
  return __libc_realloc(p, n);
}
void* aligned_alloc(size_t alignment, size_t n) {
  if (g_counting) ++g_allocations;
  return __libc_memalign(alignment, n);
}
}
#endif

namespace {

using sb::Error;
using sb::ErrorCode;
using sb::Result;

int fail(const Error& err) {
  fprintf(stderr, "error: %s\n", err.message());
  return 1;
}

bool read_file(const char* path, std::vector<uint8_t>* out) {
  FILE* f = fopen(path, "rb");
  if (f == nullptr) return false;
  uint8_t chunk[65536];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) out->insert(out->end(), chunk, chunk + n);
  fclose(f);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  bool with_backend = true;
  sb::RuntimeLimits limits;
  std::string output_dir;
  const char* model = nullptr;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--no-backend") {
      with_backend = false;
    } else if (arg == "--max-memory" && i + 1 < argc) {
      limits.memory_bytes = strtoull(argv[++i], nullptr, 10);
    } else if (arg == "--output-dir" && i + 1 < argc) {
      output_dir = argv[++i];
    } else {
      model = argv[i];
    }
  }
  if (model == nullptr) {
    fprintf(stderr, "usage: delegate_test [--no-backend] [--max-memory BYTES] [--output-dir D] M.pte\n");
    return 2;
  }
  sb::OpRegistry registry;
  Error err = sb::register_kernels(registry);
  if (err.ok() && with_backend) err = registry.add_backend(sb_test::payload_inspector);
  if (!err.ok()) return fail(err);

  std::vector<uint8_t> file;
  if (!read_file(model, &file)) return fail(Error::make(ErrorCode::kInvalidArgument, "cannot read %s", model));
  Result<sb::Program> program = sb::Program::load(file.data(), file.size());
  if (!program.ok()) return fail(program.error);
  sb::Method method;
  if (!(err = method.load(program.value, "forward", registry, "model", limits)).ok()) return fail(err);

  std::vector<std::vector<float>> inputs(method.num_inputs());
  for (size_t i = 0; i < method.num_inputs(); ++i) {
    const sb::Value& v = method.input(i);
    if (!v.is_tensor() || v.as_tensor->dtype != sb::ScalarType::kFloat) continue;
    sb::Tensor src = *v.as_tensor;
    inputs[i].assign(static_cast<size_t>(src.numel()), 1.0f);
    src.data = inputs[i].data();
    if (!(err = method.set_input(i, src)).ok()) return fail(err);
  }
  g_allocations = 0;
  g_counting = true;
  err = method.execute();
  g_counting = false;
  if (!err.ok()) return fail(err);
  sb_test::print_calls();
  if (SB_COUNT_ALLOCATIONS) printf("allocations_during_execute=%zu\n", g_allocations);
  printf("memory_bytes=%llu\n", static_cast<unsigned long long>(method.memory_used()));
  if (!output_dir.empty()) {
    mkdir(output_dir.c_str(), 0755);
    for (size_t i = 0; i < method.num_outputs(); ++i) {
      if (!method.output(i).is_tensor()) continue;
      const std::string path = output_dir + "/output" + std::to_string(i) + ".npy";
      if (!(err = sb::runner::write_npy(path, *method.output(i).as_tensor)).ok()) return fail(err);
    }
  }
  return 0;
}
