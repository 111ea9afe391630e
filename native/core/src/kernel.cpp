#include "sb/kernel.h"

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "sb/registry.h"
#include "sb/trace.h"

namespace sb {
namespace {

constexpr uint16_t bit(Tag t) { return static_cast<uint16_t>(1u << static_cast<unsigned>(t)); }
constexpr uint16_t kTensor = bit(Tag::kTensor);
constexpr uint16_t kNone = bit(Tag::kNone);
constexpr uint16_t kScalar = bit(Tag::kInt) | bit(Tag::kDouble) | bit(Tag::kBool);

// The tags an argument kind takes, one bit per Tag: a switch of constants,
// which the compiler makes one small table.
uint16_t kind_tags(char kind) {
  switch (kind) {
    case 'T':
    case 'W': return kTensor;
    case 't': return kTensor | kNone;
    case 'L': return bit(Tag::kTensorList);
    case 'O': return bit(Tag::kOptionalTensorList) | bit(Tag::kTensorList);
    case 'i': return bit(Tag::kInt);
    case 'n': return bit(Tag::kInt) | kNone;
    case 'I': return bit(Tag::kIntList);
    case 'J': return bit(Tag::kIntList) | kNone;
    case 'd': return bit(Tag::kDouble) | bit(Tag::kInt);
    case 'b': return bit(Tag::kBool);
    case 'D': return bit(Tag::kDoubleList);
    case 'B': return bit(Tag::kBoolList);
    case 'E': return bit(Tag::kDoubleList) | kNone;
    case 's': return kScalar;
    case 'S': return kScalar | kNone;
    case 'z': return bit(Tag::kString);
    case 'Z': return bit(Tag::kString) | kNone;
    default: return 0;
  }
}

bool tag_matches(char kind, Tag tag) { return (kind_tags(kind) & bit(tag)) != 0; }

// What a kind is called in messages: "optional " when it takes None, then the
// name of its widest tag ("int list", "optional tensor list"); a scalar kind
// takes three tags.
const char* kind_name(char kind, const char** optional) {
  const uint16_t tags = kind_tags(kind);
  *optional = (tags & kNone) != 0 ? "optional " : "";
  const unsigned some = tags & ~kNone;
  if ((some & kScalar) == kScalar) return "scalar";
  return some != 0 ? tag_name(static_cast<Tag>(31 - __builtin_clz(some))) : "?";
}

}  // namespace

size_t arity(const KernelDef& def) {
  size_t n = 0;
  for (const char* p = def.signature; *p && *p != '>'; ++p) n += *p != '|';
  return n;
}

char returned_kind(const KernelDef& def) {
  const char* ret = strchr(def.signature, '>');
  return ret == nullptr ? 'R' : ret[1];
}

namespace {

// Kind letter of argument i (i < arity).
char kind_at(const KernelDef& def, size_t i) {
  for (const char* p = def.signature; *p && *p != '>'; ++p) {
    if (*p == '|') continue;
    if (i-- == 0) return *p;
  }
  return '\0';
}

}  // namespace

bool is_output(const KernelDef& def, size_t i) {
  const size_t n = arity(def);
  if (i >= n) return true;  // the returned value
  const char* bar = strchr(def.signature, '|');
  const char* ret = strchr(def.signature, '>');
  if (bar != nullptr && (ret == nullptr || bar < ret) && i >= static_cast<size_t>(bar - def.signature)) return true;
  return kind_at(def, i) == 'W';
}

namespace {

// The first tensor of `args` (list members included) that breaks `def.layout`,
// with where it is; false when every tensor fits.
struct LayoutBreak {
  const Tensor* tensor = nullptr;
  size_t arg = 0;
  long item = -1;  // index in a tensor list, or -1
};

bool find_layout_break(const KernelDef& def, Args args, LayoutBreak* found) {
  const Tensor* first = nullptr;  // the first tensor of rank >= 1 (kSameDimOrder)
  auto breaks = [&](const Tensor* t) {
    if (t == nullptr) return false;
    if (def.layout == LayoutPolicy::kDefaultOnly) return !t->is_default_dim_order();
    if (t->dim == 0) return false;
    if (first == nullptr) {
      first = t;
      return false;
    }
    const bool both_default = first->is_default_dim_order() && t->is_default_dim_order();
    return !both_default && !same_dim_order(*first, *t);
  };
  for (size_t a = 0; a < args.size(); ++a) {
    const Value& v = *args[a];
    if (v.is_tensor() && breaks(v.as_tensor)) {
      *found = LayoutBreak{v.as_tensor, a, -1};
      return true;
    }
    if (v.tag == Tag::kTensorList || v.tag == Tag::kOptionalTensorList) {
      for (size_t k = 0; k < v.as_tensor_list.size(); ++k) {
        if (breaks(v.as_tensor_list[k])) {
          *found = LayoutBreak{v.as_tensor_list[k], a, static_cast<long>(k)};
          return true;
        }
      }
    }
  }
  return false;
}

}  // namespace

Error check_layout(const KernelDef& def, Args args, const Value* values) {
  if (def.layout == LayoutPolicy::kAny) return Error();
  LayoutBreak found;
  if (!find_layout_break(def, args, &found)) return Error();
  char order[64];
  format_dim_order(order, sizeof order, *found.tensor);
  char where[64];
  const int n = values != nullptr
                    ? snprintf(where, sizeof where, "value %ld", static_cast<long>(args[found.arg] - values))
                    : snprintf(where, sizeof where, "argument %zu", found.arg);
  if (found.item >= 0 && n > 0 && static_cast<size_t>(n) < sizeof where) {
    snprintf(where + n, sizeof where - static_cast<size_t>(n), ", item %ld", found.item);
  }
  return Error::make(ErrorCode::kNotSupported, "%s does not take dim order %s (%s)%s", def.op, order, where,
                     def.layout == LayoutPolicy::kSameDimOrder ? ": its tensors must share one dim order" : "");
}

Error check_signature(const KernelDef& def, Args args, CallSite site) {
  // One pass over the signature (a kernel's dispatcher calls run this every time): the arity, the
  // returned kind and the first argument of the wrong kind, reported in that order.
  size_t expected = 0;
  size_t wrong = SIZE_MAX;
  const char* p = def.signature;
  for (; *p && *p != '>'; ++p) {
    if (*p == '|') continue;
    const bool present = expected < args.size();
    if (wrong == SIZE_MAX && present && !tag_matches(*p, args[expected] ? args[expected]->tag : Tag::kNone)) {
      wrong = expected;
    }
    ++expected;
  }
  const char ret = *p == '>' ? p[1] : 'R';
  const size_t returned = site == CallSite::kProgram && ret != '\0' ? 1 : 0;
  if (args.size() != expected + returned) {
    return Error::make(ErrorCode::kInvalidProgram, "%s takes %zu arguments, the call passes %zu", def.op,
                       expected + returned, args.size());
  }
  if (returned != 0) {
    const Tag tag = args[expected] ? args[expected]->tag : Tag::kNone;
    const bool fits = ret == 'R' ? tag == Tag::kTensor || tag == Tag::kTensorList : tag_matches(ret, tag);
    if (!fits) {
      const char* optional = "";
      const char* name = ret == 'R' ? "tensor or tensor list" : kind_name(ret, &optional);
      return Error::make(ErrorCode::kInvalidProgram, "%s returns into a %s, expected a %s%s", def.op, tag_name(tag),
                         optional, name);
    }
  }
  if (wrong != SIZE_MAX) {
    const Tag tag = args[wrong] ? args[wrong]->tag : Tag::kNone;
    const char* optional = "";
    const char* name = kind_name(kind_at(def, wrong), &optional);
    return Error::make(ErrorCode::kInvalidProgram, "%s argument %zu is a %s, expected a %s%s", def.op, wrong,
                       tag_name(tag), optional, name);
  }
  return Error();
}

Error invoke(const OpRegistry& registry, TraceSink* trace, const KernelDef& def, const KernelDef* caller,
             Args args, const KernelDef* const* callees, ThreadPool* threads) {
  if (trace != nullptr) trace->on_invoke(def, caller, args);
  KernelContext ctx(registry, trace, def, callees, threads);
  return def.fn(ctx, args);
}

Error KernelContext::call(const char* op, Args args) {
  // Kernels pass the literal their calls list names: the compiler merges equal
  // literals, so the pointers usually match and strcmp is the fallback.
  size_t index = 0;
  while (index < kernel_.calls.size() && kernel_.calls[index] != op && strcmp(kernel_.calls[index], op) != 0) ++index;
  if (index == kernel_.calls.size()) {
    return Error::make(ErrorCode::kInvalidArgument, "%s calls %s without declaring it in its calls list",
                       kernel_.op, op);
  }
  const KernelDef* def = callees_ != nullptr ? callees_[index] : registry_.find(op);
  if (def == nullptr) {
    return Error::make(ErrorCode::kMissingOperator, "missing operator %s (needed by %s)", op, kernel_.op);
  }
  Error err = check_signature(*def, args, CallSite::kDispatcher);
  if (!err.ok()) return err;
  // Only a kernel that takes other dim orders can pass them on (the loader
  // checked the program's calls; kernels make their own views contiguous).
  if (kernel_.layout != LayoutPolicy::kDefaultOnly && !(err = check_layout(*def, args, nullptr)).ok()) {
    return Error::make(err.code(), "%s: %s", kernel_.op, err.message());
  }
  return invoke(registry_, trace_, *def, &kernel_, args, nullptr, threads_);
}

}  // namespace sb
