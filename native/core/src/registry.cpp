#include "sb/registry.h"

#include <cstring>

namespace sb {
namespace {

// Composite kernels nest only a few levels; the bound also stops a cycle.
constexpr int kMaxCallDepth = 16;

bool name_matches(const char* full, const char* name, const char* overload) {
  const size_t n = strlen(name);
  if (strncmp(full, name, n) != 0) return false;
  const char* rest = full + n;
  if (*overload == '\0') return *rest == '\0';
  return *rest == '.' && strcmp(rest + 1, overload) == 0;
}

Error check_callees(const OpRegistry& registry, const KernelDef& def, const char* model, int depth, bool lenient) {
  if (depth > kMaxCallDepth) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: kernel calls nest deeper than %d (a cycle?)", def.op,
                       kMaxCallDepth);
  }
  for (const char* callee : def.calls) {
    const KernelDef* found = registry.find(callee);
    if (found == nullptr && lenient) continue;
    if (found == nullptr) {
      return Error::make(ErrorCode::kMissingOperator, "missing operator %s (needed by %s, called by %s)", callee,
                         model, def.op);
    }
    Error err = check_callees(registry, *found, model, depth + 1, lenient);
    if (!err.ok()) return err;
  }
  return Error();
}

}  // namespace

Error OpRegistry::add(const KernelDef& def) {
  if (find(def.op) != nullptr) {
    return Error::make(ErrorCode::kInvalidArgument, "operator %s is registered twice", def.op);
  }
  if (count_ == kCapacity) {
    return Error::make(ErrorCode::kOutOfMemory, "op registry is full (%zu kernels)", kCapacity);
  }
  defs_[count_++] = &def;
  return Error();
}

const KernelDef* OpRegistry::find(const char* op) const {
  for (size_t i = 0; i < count_; ++i) {
    if (strcmp(defs_[i]->op, op) == 0) return defs_[i];
  }
  return nullptr;
}

const KernelDef* OpRegistry::find(const char* name, const char* overload) const {
  for (size_t i = 0; i < count_; ++i) {
    if (name_matches(defs_[i]->op, name, overload)) return defs_[i];
  }
  return nullptr;
}

Error OpRegistry::check_closure(const KernelDef& def, const char* model) const {
  return check_callees(*this, def, model, 0, lenient_calls_);
}

}  // namespace sb
