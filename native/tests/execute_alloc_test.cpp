// Proves that Method::execute does not touch the heap: malloc and friends
// are interposed and counted while execute() runs.
//
//   execute_alloc_test [--output-dir D] [--threads N] M.pte[+W.ptd...][#method][=in0.npy,in1.npy[;in0.npy,...]]
//                      [M2.pte ...]
//
// +W.ptd attaches a data file (the program's external weights); #method runs
// that method instead of forward.
// With input files, the inputs are set from them first (a dynamic model's may
// have any shape within its bounds: kernels then resize their outputs), and
// set_input is counted too. Input sets separated by ';' run in turn on the
// same loaded method, so a dynamic model changes shape between executes (a
// delegate re-derives its shapes then) and a stateful one steps its state. With --output-dir, run r of the i-th
// model writes its tensor outputs to D/model<i>.run<r>.output<k>.npy. Prints
// one line per model and exits non-zero if any execute (or set_input)
// allocated.
//
// --threads N runs the methods on a pool of N threads (sb/thread_pool.h),
// started before any program loads: its workers' allocations count too, and
// so does a thread started while execute() runs (each maps a stack and
// allocates its thread-local storage, and execute must start none).
#include <dlfcn.h>
#include <pthread.h>
#include <sys/stat.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "npy.h"

#include "sb/data_file.h"
#include "sb/method.h"
#include "sb/program.h"
#include "sb/registry.h"
#include "sb/thread_pool.h"

extern "C" {
void* __libc_malloc(size_t);
void* __libc_calloc(size_t, size_t);
void* __libc_realloc(void*, size_t);
void* __libc_memalign(size_t, size_t);

// Atomic: the pool's workers allocate (or not) while the main thread counts.
static std::atomic<bool> g_counting{false};
static std::atomic<size_t> g_allocations{0};

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

using CreateFn = int (*)(pthread_t*, const pthread_attr_t*, void* (*)(void*), void*);
int pthread_create(pthread_t* thread, const pthread_attr_t* attr, void* (*start)(void*), void* arg) {
  if (g_counting) ++g_allocations;
  static const CreateFn next = reinterpret_cast<CreateFn>(dlsym(RTLD_NEXT, "pthread_create"));
  return next(thread, attr, start, arg);
}
}

static bool read_file(const char* path, std::vector<uint8_t>* out) {
  FILE* f = fopen(path, "rb");
  if (f == nullptr) return false;
  uint8_t chunk[65536];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) out->insert(out->end(), chunk, chunk + n);
  fclose(f);
  return true;
}

// The interposer must see allocations, or a pass would prove nothing.
static bool interposer_works() {
  g_allocations = 0;
  g_counting = true;
  void* volatile probe = malloc(16);
  g_counting = false;
  free(probe);
  return g_allocations == 1;
}

int main(int argc, char** argv) {
  if (!interposer_works()) {
    fprintf(stderr, "error: malloc interposer is not active\n");
    return 2;
  }
  sb::OpRegistry registry;
  sb::Error err = sb::register_kernels(registry);
  if (!err.ok()) {
    fprintf(stderr, "error: %s\n", err.message());
    return 2;
  }
  int failures = 0;
  std::string output_dir;
  int first = 1;
  if (argc > first + 1 && std::string(argv[first]) == "--output-dir") {
    output_dir = argv[first + 1];
    mkdir(output_dir.c_str(), 0755);  // may exist already; write_npy reports real failures
    first += 2;
  }
  sb::RuntimeLimits limits;
  if (argc > first + 1 && std::string(argv[first]) == "--threads") {
    const int threads = atoi(argv[first + 1]);
    if (threads < 1) {
      fprintf(stderr, "error: --threads takes a whole number from 1\n");
      return 2;
    }
#if SB_THREADS
    // Started before counting, as a caller does before execute.
    static sb::ThreadPool pool(static_cast<size_t>(threads));
    limits.threads = &pool;
#else
    if (threads > 1) {
      fprintf(stderr, "error: built without threads (SB_THREADS=OFF)\n");
      return 2;
    }
#endif
    first += 2;
  }
  for (int i = first; i < argc; ++i) {
    const std::string arg = argv[i];
    const size_t eq = arg.find('=');
    std::string model = arg.substr(0, eq);
    std::string method_name = "forward";
    const size_t hash = model.find('#');
    if (hash != std::string::npos) {
      method_name = model.substr(hash + 1);
      model = model.substr(0, hash);
    }
    std::vector<std::string> data_paths;
    for (size_t plus = model.find('+'); plus != std::string::npos; plus = model.find('+')) {
      const size_t next = model.find('+', plus + 1);
      data_paths.push_back(model.substr(plus + 1, next == std::string::npos ? std::string::npos : next - plus - 1));
      model = model.substr(0, plus) + (next == std::string::npos ? "" : model.substr(next));
    }
    // runs[r]: the inputs of the r-th execute (one run without inputs when none are given).
    std::vector<std::vector<sb::runner::NpyArray>> runs(1);
    for (size_t at = eq; at != std::string::npos && at < arg.size();) {
      const size_t next = arg.find_first_of(",;", at + 1);
      if (arg[at] == ';') runs.emplace_back();
      runs.back().emplace_back();
      const std::string path = arg.substr(at + 1, next == std::string::npos ? std::string::npos : next - at - 1);
      if (!(err = sb::runner::read_npy(path, &runs.back().back())).ok()) {
        fprintf(stderr, "error: %s\n", err.message());
        return 2;
      }
      at = next;
    }
    std::vector<uint8_t> file;
    if (!read_file(model.c_str(), &file)) {
      fprintf(stderr, "error: cannot read %s\n", model.c_str());
      return 2;
    }
    sb::Result<sb::Program> program = sb::Program::load(file.data(), file.size());
    std::vector<std::vector<uint8_t>> data_bytes(data_paths.size());
    std::vector<sb::DataFile> data_files;
    for (size_t k = 0; k < data_paths.size(); ++k) {
      sb::Result<sb::DataFile> data = sb::DataFile::load(nullptr, 0, "");
      if (read_file(data_paths[k].c_str(), &data_bytes[k])) {
        data = sb::DataFile::load(data_bytes[k].data(), data_bytes[k].size(), data_paths[k].c_str());
      }
      if (!data.ok()) {
        fprintf(stderr, "error: %s: %s\n", data_paths[k].c_str(), data.error.message());
        return 2;
      }
      data_files.push_back(std::move(data.value));
    }
    if (program.ok()) program.value.use_data_files(data_files.data(), data_files.size());
    sb::Method method;
    if (!program.ok() ||
        !(err = method.load(program.value, method_name.c_str(), registry, model.c_str(), limits)).ok()) {
      fprintf(stderr, "error: %s\n", program.ok() ? err.message() : program.error.message());
      return 2;
    }
    g_allocations = 0;
    for (size_t r = 0; r < runs.size(); ++r) {
      const std::vector<sb::runner::NpyArray>& inputs = runs[r];
      g_counting = true;
      for (size_t k = 0; k < inputs.size() && err.ok(); ++k) err = method.set_input(k, inputs[k].tensor);
      if (err.ok()) err = method.execute();
      g_counting = false;
      if (!err.ok()) {
        fprintf(stderr, "error: %s\n", err.message());
        return 2;
      }
      for (size_t k = 0; k < method.num_outputs() && !output_dir.empty(); ++k) {
        const sb::Value& out = method.output(k);
        if (!out.is_tensor() || !out.as_tensor->is_default_dim_order()) continue;
        const std::string path = output_dir + "/model" + std::to_string(i - first) + ".run" + std::to_string(r) +
                                 ".output" + std::to_string(k) + ".npy";
        if (!(err = sb::runner::write_npy(path, *out.as_tensor)).ok()) {
          fprintf(stderr, "error: %s\n", err.message());
          return 2;
        }
      }
    }
    printf("%s allocations_during_execute=%zu\n", model.c_str(), g_allocations.load());
    failures += g_allocations.load() != 0;
  }
  return failures == 0 ? 0 : 1;
}
