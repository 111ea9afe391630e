// The op registry: an explicit, fixed-capacity table from op name to kernel,
// filled by a (generated) registration function. In the spirit of TFLite
// Micro's op resolver there is no static-initialiser magic: what is
// registered is exactly what register_kernels() adds.
#pragma once

#include <cstddef>

#include "sb/error.h"
#include "sb/kernel.h"

namespace sb {

// The ops a program needs that a build lacks, gathered over the whole
// operator table so one load error names them all:
//   missing operator X (needed by M)                       one op
//   missing operator X (needed by M, called by K)          one op a kernel K calls
//   missing operators X, Y (called by K), Z (needed by M)  several
// The list lives in a fixed buffer; when it does not fit in the message, it
// ends in "…" (whole entries only) and the model's name stays.
class MissingOps {
 public:
  // `caller` is the kernel that dispatches to `op`, or nullptr for an op the
  // program calls itself. An op already listed is not listed again.
  void add(const char* op, const char* caller);
  bool empty() const { return count_ == 0; }
  size_t count() const { return count_; }
  Error error(const char* model) const;

 private:
  static constexpr size_t kCapacity = 240;  // error() cuts the list to what its message holds
  bool listed(const char* entry) const;

  char list_[kCapacity] = {};
  size_t used_ = 0;
  size_t count_ = 0;
  bool truncated_ = false;
  char first_op_[96] = {};
  char first_caller_[96] = {};
};

class OpRegistry {
 public:
  static constexpr size_t kCapacity = 256;

  // Fails on a duplicate name (the prim ops included) or when the table is full.
  Error add(const KernelDef& def);
  // Registered kernels first, then the core's prim ops (sb/prim_ops.h),
  // which every registry has.
  const KernelDef* find(const char* op) const;
  const KernelDef* find(const char* name, const char* overload) const;  // "aten::add", "out"

  size_t size() const { return count_; }
  const KernelDef& at(size_t i) const { return *defs_[i]; }

  // Adds to `missing` every op `def` may call, transitively, that is not
  // registered (none on a lenient registry). Fails only on calls nested
  // deeper than a kernel chain can be (a cycle).
  Error collect_missing_calls(const KernelDef& def, MissingOps& missing) const;

  // For builds selected from traced ops only (config `include: traced`): a
  // declared call that was not selected no longer fails the load; it fails
  // when (if ever) a kernel makes it, naming the missing op.
  void allow_unresolved_calls() { lenient_calls_ = true; }

 private:
  const KernelDef* defs_[kCapacity] = {};
  size_t count_ = 0;
  bool lenient_calls_ = false;
};

// Defined by the generated registration source of each build flavour
// (all ops, or a selective build's chosen kernels).
Error register_kernels(OpRegistry& registry);

}  // namespace sb
