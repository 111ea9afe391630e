// The op registry: an explicit, fixed-capacity table from op name to kernel,
// filled by a (generated) registration function. In the spirit of TFLite
// Micro's op resolver there is no static-initialiser magic: what is
// registered is exactly what register_kernels() adds.
#pragma once

#include <cstddef>

#include "sb/error.h"
#include "sb/kernel.h"

namespace sb {

class OpRegistry {
 public:
  static constexpr size_t kCapacity = 256;

  // Fails on a duplicate name or when the table is full.
  Error add(const KernelDef& def);
  const KernelDef* find(const char* op) const;
  const KernelDef* find(const char* name, const char* overload) const;  // "aten::add", "out"

  size_t size() const { return count_; }
  const KernelDef& at(size_t i) const { return *defs_[i]; }

  // Checks that `def` and every op it may call, transitively, are
  // registered. `model` only labels the error message.
  Error check_closure(const KernelDef& def, const char* model) const;

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
