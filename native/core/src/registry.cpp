#include "sb/registry.h"

#include <cstdio>
#include <cstring>

#include "sb/backend.h"

namespace sb {
namespace {

// Composite kernels nest only a few levels; the bound also stops a cycle.
constexpr int kMaxCallDepth = 16;

Error check_callees(const OpRegistry& registry, const KernelDef& def, MissingOps& missing, int depth,
                    bool lenient) {
  if (depth > kMaxCallDepth) {
    return Error::make(ErrorCode::kInvalidArgument, "%s: kernel calls nest deeper than %d (a cycle?)", def.op,
                       kMaxCallDepth);
  }
  for (const char* callee : def.calls) {
    const KernelDef* found = registry.find(callee);
    if (found == nullptr) {
      if (!lenient) missing.add(callee, def.op);
      continue;
    }
    Error err = check_callees(registry, *found, missing, depth + 1, lenient);
    if (!err.ok()) return err;
  }
  return Error();
}

// Appends `text` to buf[used..cap), keeping the terminator; false if cut.
bool append(char* buf, size_t cap, size_t* used, const char* text) {
  const size_t n = strlen(text);
  if (*used + n + 1 > cap) return false;
  memcpy(buf + *used, text, n + 1);
  *used += n;
  return true;
}

// First index in defs[0..count) whose op does not sort before `op`.
size_t lower_bound(const KernelDef* const* defs, size_t count, const char* op) {
  size_t low = 0;
  size_t high = count;
  while (low < high) {
    const size_t mid = low + (high - low) / 2;
    if (strcmp(defs[mid]->op, op) < 0) {
      low = mid + 1;
    } else {
      high = mid;
    }
  }
  return low;
}

}  // namespace

// The table is kept sorted by op name: composite kernels look their callees up
// by name on every call (KernelContext::call), so find() is a binary search.
Error OpRegistry::add(const KernelDef& def) {
  if (find(def.op) != nullptr) {
    return Error::make(ErrorCode::kInvalidArgument, "operator %s is registered twice", def.op);
  }
  if (count_ == kCapacity) {
    return Error::make(ErrorCode::kOutOfMemory, "op registry is full (%zu kernels)", kCapacity);
  }
  const size_t at = lower_bound(defs_, count_, def.op);
  for (size_t i = count_; i > at; --i) defs_[i] = defs_[i - 1];
  defs_[at] = &def;
  ++count_;
  return Error();
}

const KernelDef* OpRegistry::find(const char* op) const {
  const size_t at = lower_bound(defs_, count_, op);
  if (at < count_ && strcmp(defs_[at]->op, op) == 0) return defs_[at];
  return nullptr;
}

void OpRegistry::resolve_calls(const KernelDef& def, const KernelDef** callees) const {
  for (size_t i = 0; i < def.calls.size(); ++i) callees[i] = find(def.calls[i]);
}

const Backend* OpRegistry::find_backend(const char* id, size_t length) const {
  for (size_t i = 0; i < num_backends_; ++i) {
    if (strlen(backends_[i]->id) == length && memcmp(backends_[i]->id, id, length) == 0) return backends_[i];
  }
  return nullptr;
}

Error OpRegistry::collect_missing_calls(const KernelDef& def, MissingOps& missing) const {
  return check_callees(*this, def, missing, 0, lenient_calls_);
}

bool MissingOps::listed(const char* entry) const {
  const size_t n = strlen(entry);
  if (n == 0) return false;  // an unnamed op (a corrupt program): listed as it comes
  for (const char* p = list_; *p != '\0' && (p = strstr(p, entry)) != nullptr; ++p) {
    const bool starts = p == list_ || (p >= list_ + 2 && p[-2] == ',' && p[-1] == ' ');
    const bool ends = p[n] == '\0' || (p[n] == ',' && p[n + 1] == ' ');
    if (starts && ends) return true;
  }
  return false;
}

void MissingOps::add(const char* op, const char* caller) {
  char entry[200];
  snprintf(entry, sizeof entry, caller ? "%s (called by %s)" : "%s%s", op, caller ? caller : "");
  if (listed(entry)) return;
  if (count_ == 0) {
    snprintf(first_op_, sizeof first_op_, "%s", op);
    snprintf(first_caller_, sizeof first_caller_, "%s", caller ? caller : "");
  }
  ++count_;
  if (truncated_) return;
  // Room is kept for ", …" so a cut list still says it was cut.
  const size_t keep = kCapacity - 6;
  size_t used = used_;
  if ((used == 0 || append(list_, keep, &used, ", ")) && append(list_, keep, &used, entry)) {
    used_ = used;
    return;
  }
  list_[used_] = '\0';
  append(list_, kCapacity, &used_, used_ == 0 ? "…" : ", …");
  truncated_ = true;
}

void MissingOps::add_backend(const char* id) {
  // An id already listed (several delegates of one backend) is listed once. An empty id (a corrupt
  // program) matches everywhere, so it is never looked for: the search would walk off the list.
  const size_t n = strlen(id);
  for (const char* p = backends_; n > 0 && *p != '\0' && (p = strstr(p, id)) != nullptr; ++p) {
    if ((p == backends_ || p[-1] == ' ') && (p[n] == '\0' || p[n] == ',')) return;
  }
  ++backend_count_;
  // Whole ids while they fit, then ", …" (three bytes in UTF-8) once.
  size_t used = strlen(backends_);
  if (used >= 3 && strcmp(backends_ + used - 3, "…") == 0) return;
  if (used > 0 && used + 2 + n + 5 > kBackendCapacity) {
    append(backends_, kBackendCapacity, &used, ", …");
    return;
  }
  if (used > 0) append(backends_, kBackendCapacity, &used, ", ");
  append(backends_, kBackendCapacity, &used, id);  // a first id fits: the loader passes at most 63 bytes
}

Error MissingOps::error(const char* model) const {
  if (count_ == 0 && backend_count_ == 0) return Error();
  if (count_ == 1 && backend_count_ == 0) {
    if (first_caller_[0] != '\0') {
      return Error::make(ErrorCode::kMissingOperator, "missing operator %s (needed by %s, called by %s)", first_op_,
                         model, first_caller_);
    }
    return Error::make(ErrorCode::kMissingOperator, "missing operator %s (needed by %s)", first_op_, model);
  }
  // Whole entries that fit beside the prefix and the suffix (the backends and
  // the model), then "…".
  char suffix[224];
  snprintf(suffix, sizeof suffix, "%s%s%s (needed by %s)", count_ == 0 ? " " : backend_count_ ? " and " : "",
           backend_count_ == 0 ? "" : backend_count_ == 1 ? "backend " : "backends ", backends_, model);
  const char* const head = count_ == 0 ? "missing" : count_ == 1 ? "missing operator " : "missing operators ";
  const size_t prefix = strlen(head);
  const size_t room = kMaxErrorMessage - 1 > prefix + strlen(suffix) ? kMaxErrorMessage - 1 - prefix - strlen(suffix) : 0;
  char list[kCapacity];
  memcpy(list, list_, kCapacity);
  if (strlen(list) > room) {
    const char* const kCut = ", …";
    size_t keep = 0;
    for (const char* p = list; (p = strstr(p, ", ")) != nullptr; ++p) {
      const size_t at = static_cast<size_t>(p - list);
      if (at + strlen(kCut) <= room) keep = at;
    }
    const char* const tail = keep == 0 ? "…" : kCut;
    memcpy(list + keep, tail, strlen(tail) + 1);  // fits: keep + strlen(kCut) <= room < kCapacity
  }
  return Error::make(ErrorCode::kMissingOperator, "%s%s%s", head, list, suffix);
}

}  // namespace sb
