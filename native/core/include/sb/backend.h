// Backends: a program may hand part of its graph to a backend (ExecuTorch's
// "delegate"). The exporter replaces the part with one DelegateCall
// instruction and stores what the backend's preprocess produced (the
// "processed" payload) in the program, with the compile specs it was made
// with; large weights go to the program's named data, keyed by name.
//
// A backend implements BackendInterface and is registered explicitly, like a
// kernel: OpRegistry::add_backend(const Backend&), from the generated
// registration of a build that selects it. When a method loads, each of its
// delegates is looked up by id ("XnnpackBackend") and initialised from its
// payload, compile specs and the program's named data; each DelegateCall then
// executes the delegate with the call's values. A program whose backend is not
// registered fails at load, with its missing ops, in one error line.
//
// The rules a backend keeps, as kernels do:
//   - init() allocates only through BackendInitContext::allocate, which counts
//     against the method's memory budget (RuntimeLimits::memory_bytes) and
//     lives until the method is released; everything execute() needs (plans,
//     packed weights, scratch) is allocated there.
//   - execute() does not touch the heap.
//   - the payload and the named data are untrusted bytes of the program:
//     every offset and size in them is checked (see checked.h).
//
// A build that registers no backend links none of the loading and executing
// machinery (it lives in backend.cpp, reached only through add_backend).
#pragma once

#include <cstddef>
#include <cstdint>

#include "sb/error.h"
#include "sb/kernel.h"
#include "sb/span.h"

namespace sb {

class OpRegistry;
class Program;
class ThreadPool;
class TraceSink;

// One key/value pair a delegate was compiled with (program.fbs CompileSpec).
// Both point into the program bytes; the key is not NUL-terminated.
struct CompileSpec {
  Span<const char> key;
  Span<const uint8_t> value;
};

// The program's named data (Program.named_data): blobs in the program's
// segments, each under a unique key. ExecuTorch 1.5 keeps XNNPACK weights here.
class NamedData {
 public:
  // A null program has no entries.
  explicit NamedData(const Program* program) : program_(program) {}
  size_t size() const;
  // Key `i`; empty when the entry is out of bounds (a corrupt program).
  Span<const char> key(size_t i) const;
  // The bytes stored under `key`: an invalid-program error when an entry is
  // out of bounds or its segment lies past the end of the file, and a
  // missing-data error naming the key when no entry has it.
  Result<Span<const uint8_t>> get(Span<const char> key) const;
  Result<Span<const uint8_t>> get(const char* key) const;

 private:
  const Program* program_;
};

// What init() is given besides the payload.
class BackendInitContext {
 public:
  // `bytes` of zeroed memory, aligned to 16, that lives as long as the
  // method; a memory-budget error (naming `what`) when the method's budget
  // cannot hold it (each allocation also counts a few bytes of bookkeeping).
  Result<void*> allocate(uint64_t bytes, const char* what);
  const NamedData& named_data() const { return named_data_; }
  const char* method_name() const { return method_name_; }
  const char* backend_id() const { return backend_id_; }
  uint32_t delegate_index() const { return delegate_index_; }
  // The build's kernels: a backend that runs its graph on them resolves
  // them here, at init, and reports the ones the build lacks.
  const OpRegistry& registry() const { return registry_; }

  // Set up by the method loader.
  using AllocateFn = Error (*)(void* owner, uint64_t bytes, const char* what, void** out);
  BackendInitContext(AllocateFn allocate, void* owner, const OpRegistry& registry, const Program* program,
                     const char* method_name, const char* backend_id, uint32_t delegate_index)
      : allocate_(allocate),
        owner_(owner),
        registry_(registry),
        named_data_(program),
        method_name_(method_name),
        backend_id_(backend_id),
        delegate_index_(delegate_index) {}

 private:
  AllocateFn allocate_;
  void* owner_;
  const OpRegistry& registry_;
  NamedData named_data_;
  const char* method_name_;
  const char* backend_id_;
  uint32_t delegate_index_;
};

// What execute() is given besides the handle and the call's values.
struct BackendExecutionContext {
  uint32_t delegate_index;
  size_t instruction;  // the DelegateCall's index in the chain
  // Where a backend that runs kernels invokes them (sb::invoke), so a
  // tracing build records what ran inside the delegate too.
  const OpRegistry* registry;
  TraceSink* trace;  // nullptr unless tracing
  // Bit i: the call's value i is the program's constant data, which a
  // backend must only read (exporters pass constants as delegate inputs).
  uint32_t constant_args;
  // The pool its kernels may split their loops over (RuntimeLimits::threads), or nullptr.
  ThreadPool* threads = nullptr;
};

class BackendInterface {
 public:
  // False when the backend cannot run here (a missing CPU feature): the
  // program then fails at load as if the backend were not registered.
  virtual bool is_available() const { return true; }

  // Prepares a delegate for execution from its processed payload (which
  // points into the program bytes: valid while the program is) and its
  // compile specs. Returns the handle execute() and destroy() receive.
  virtual Result<void*> init(BackendInitContext& context, Span<const uint8_t> processed,
                             Span<const CompileSpec> compile_specs) const = 0;

  // Runs the delegate on the call's values: its inputs, then its outputs,
  // as the DelegateCall lists them. Must not allocate.
  virtual Error execute(const BackendExecutionContext& context, void* handle, Args args) const = 0;

  // Releases what the handle holds beyond its init() allocations (which the
  // method frees itself). Called once per successful init().
  virtual void destroy(void* /*handle*/) const {}

 protected:
  ~BackendInterface() = default;
};

// A backend as registered: the id programs name it by, its implementation,
// and the op namespace of the kernels only its delegates call ("xnnpack" for
// xnnpack::conv2d.f32), or nullptr. Those kernels trust the plan that calls
// them (shapes it checked at init), so a program that names one as an
// operator is refused at load.
struct Backend {
  const char* id;
  const BackendInterface* backend;
  const char* node_kinds = nullptr;
};

}  // namespace sb
