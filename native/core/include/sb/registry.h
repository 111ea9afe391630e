// The op registry: an explicit, fixed-capacity table from op name to kernel,
// and from backend id to backend (sb/backend.h), filled by a (generated)
// registration function. In the spirit of TFLite Micro's op resolver there is
// no static-initialiser magic: what is registered is exactly what
// register_kernels() adds.
#pragma once

#include <cstddef>

#include "sb/error.h"
#include "sb/kernel.h"

namespace sb::fb {
struct Table;
class Reader;
}  // namespace sb::fb

namespace sb {

// The ops and backends a program needs that a build lacks, gathered over the
// whole operator and delegate tables so one load error names them all:
//   missing operator X (needed by M)                       one op
//   missing operator X (needed by M, called by K)          one op a kernel K calls
//   missing operators X, Y (called by K), Z (needed by M)  several
//   missing backend B (needed by M)                        one backend
//   missing operator X and backend B (needed by M)         both
//   missing operators X, Y and backends B, C (needed by M)
// The lists live in fixed buffers; when the ops do not fit in the message,
// they end in "…" (whole entries only); the backends and the model's name stay.
class MissingOps {
 public:
  // `caller` is the kernel that dispatches to `op`, or nullptr for an op the
  // program calls itself. An op already listed is not listed again.
  void add(const char* op, const char* caller);
  // A backend id a delegate names that the build does not register (or that
  // is not available here). Listed once.
  void add_backend(const char* id);
  bool empty() const { return count_ == 0 && backend_count_ == 0; }
  size_t count() const { return count_; }
  size_t backend_count() const { return backend_count_; }
  Error error(const char* model) const;

 private:
  static constexpr size_t kCapacity = 240;  // error() cuts the list to what its message holds
  static constexpr size_t kBackendCapacity = 80;
  bool listed(const char* entry) const;

  char list_[kCapacity] = {};
  size_t used_ = 0;
  size_t count_ = 0;
  bool truncated_ = false;
  char first_op_[96] = {};
  char first_caller_[96] = {};
  char backends_[kBackendCapacity] = {};
  size_t backend_count_ = 0;
};

struct Backend;
class BackendInitContext;
class Program;

namespace internal {
// Resolves one delegate of a method (its payload, inline or in a segment, and
// its compile specs) and calls its backend's init(). Lives in backend.cpp and
// is reached only through a registry that has a backend, so a build that
// registers none does not link it.
using DelegateInitFn = Error (*)(const Program& program, fb::Reader& reader, const fb::Table& delegate,
                                 const Backend& backend, BackendInitContext& context, void** handle);
}  // namespace internal

class OpRegistry {
 public:
  static constexpr size_t kCapacity = 512;  // the portable ops, the delegate node kinds, an app's own

  // Fails on a duplicate name or when the table is full.
  Error add(const KernelDef& def);
  // The registered kernel of `op`, or nullptr. The prim ops are kernels like
  // any other (kernels/prim): a registry has those its build selected.
  const KernelDef* find(const char* op) const;

  // callees[i] = find(def.calls[i]) (nullptr when missing), for invoke():
  // a kernel's calls resolved once, at load.
  void resolve_calls(const KernelDef& def, const KernelDef** callees) const;
  size_t size() const { return count_; }
  const KernelDef& at(size_t i) const { return *defs_[i]; }

  // Adds to `missing` every op `def` may call, transitively, that is not
  // registered (none on a lenient registry). Fails only on calls nested
  // deeper than a kernel chain can be (a cycle).
  Error collect_missing_calls(const KernelDef& def, MissingOps& missing) const;

  // Backends (sb/backend.h), by id. Fails on a duplicate id or a full table.
  // Defined in backend.cpp: registering a backend is what links delegates in.
  static constexpr size_t kMaxBackends = 8;
  Error add_backend(const Backend& backend);
  // The backend registered under id[0..length), or nullptr.
  const Backend* find_backend(const char* id, size_t length) const;
  size_t num_backends() const { return num_backends_; }
  const Backend& backend(size_t i) const { return *backends_[i]; }
  internal::DelegateInitFn delegate_init() const { return delegate_init_; }

  // For builds selected from traced ops only (config `include: traced`): a
  // declared call that was not selected no longer fails the load; it fails
  // when (if ever) a kernel makes it, naming the missing op.
  void allow_unresolved_calls() { lenient_calls_ = true; }

 private:
  const KernelDef* defs_[kCapacity] = {};
  size_t count_ = 0;
  bool lenient_calls_ = false;
  const Backend* backends_[kMaxBackends] = {};
  size_t num_backends_ = 0;
  internal::DelegateInitFn delegate_init_ = nullptr;
};

// Defined by the generated registration source of each build flavour
// (all ops, or a selective build's chosen kernels).
Error register_kernels(OpRegistry& registry);

}  // namespace sb
