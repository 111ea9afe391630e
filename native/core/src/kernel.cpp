#include "sb/kernel.h"

#include <cstring>

#include "sb/registry.h"
#include "sb/trace.h"

namespace sb {
namespace {

bool tag_matches(char kind, Tag tag) {
  switch (kind) {
    case 'T':
    case 'W': return tag == Tag::kTensor;
    case 't': return tag == Tag::kTensor || tag == Tag::kNone;
    case 'L': return tag == Tag::kTensorList;
    case 'O': return tag == Tag::kOptionalTensorList || tag == Tag::kTensorList;
    case 'i': return tag == Tag::kInt;
    case 'n': return tag == Tag::kInt || tag == Tag::kNone;
    case 'I': return tag == Tag::kIntList;
    case 'J': return tag == Tag::kIntList || tag == Tag::kNone;
    case 'd': return tag == Tag::kDouble || tag == Tag::kInt;
    case 'b': return tag == Tag::kBool;
    case 'D': return tag == Tag::kDoubleList;
    case 'B': return tag == Tag::kBoolList;
    case 'E': return tag == Tag::kDoubleList || tag == Tag::kNone;
    case 's': return tag == Tag::kInt || tag == Tag::kDouble || tag == Tag::kBool;
    case 'S': return tag == Tag::kInt || tag == Tag::kDouble || tag == Tag::kBool || tag == Tag::kNone;
    case 'z': return tag == Tag::kString;
    case 'Z': return tag == Tag::kString || tag == Tag::kNone;
    default: return false;
  }
}

const char* kind_name(char kind) {
  switch (kind) {
    case 'T': return "tensor";
    case 'W': return "tensor";
    case 't': return "optional tensor";
    case 'L': return "tensor list";
    case 'O': return "optional tensor list";
    case 'i': return "int";
    case 'n': return "optional int";
    case 'I': return "int list";
    case 'J': return "optional int list";
    case 'd': return "double";
    case 'b': return "bool";
    case 'D': return "double list";
    case 'B': return "bool list";
    case 'E': return "optional double list";
    case 's': return "scalar";
    case 'S': return "optional scalar";
    case 'z': return "string";
    case 'Z': return "optional string";
    default: return "?";
  }
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

Error check_signature(const KernelDef& def, Args args, CallSite site) {
  const size_t expected = arity(def);
  const char ret = returned_kind(def);
  const size_t returned = site == CallSite::kProgram && ret != '\0' ? 1 : 0;
  if (args.size() != expected + returned) {
    return Error::make(ErrorCode::kInvalidProgram, "%s takes %zu arguments, the call passes %zu", def.op,
                       expected + returned, args.size());
  }
  if (returned != 0) {
    const Tag tag = args[expected] ? args[expected]->tag : Tag::kNone;
    const bool fits = ret == 'R' ? tag == Tag::kTensor || tag == Tag::kTensorList : tag_matches(ret, tag);
    if (!fits) {
      return Error::make(ErrorCode::kInvalidProgram, "%s returns into a %s, expected a %s", def.op, tag_name(tag),
                         ret == 'R' ? "tensor or tensor list" : kind_name(ret));
    }
  }
  for (size_t i = 0; i < expected; ++i) {
    const char kind = kind_at(def, i);
    const Tag tag = args[i] ? args[i]->tag : Tag::kNone;
    if (!tag_matches(kind, tag)) {
      return Error::make(ErrorCode::kInvalidProgram, "%s argument %zu is a %s, expected a %s", def.op, i,
                         tag_name(tag), kind_name(kind));
    }
  }
  return Error();
}

Error invoke(const OpRegistry& registry, TraceSink* trace, const KernelDef& def, const KernelDef* caller,
             Args args) {
  if (trace != nullptr) trace->on_invoke(def, caller, args);
  KernelContext ctx(registry, trace, def);
  return def.fn(ctx, args);
}

Error KernelContext::call(const char* op, Args args) {
  bool declared = false;
  for (const char* callee : kernel_.calls) declared = declared || strcmp(callee, op) == 0;
  if (!declared) {
    return Error::make(ErrorCode::kInvalidArgument, "%s calls %s without declaring it in its calls list",
                       kernel_.op, op);
  }
  const KernelDef* def = registry_.find(op);
  if (def == nullptr) {
    return Error::make(ErrorCode::kMissingOperator, "missing operator %s (needed by %s)", op, kernel_.op);
  }
  Error err = check_signature(*def, args, CallSite::kDispatcher);
  if (!err.ok()) return err;
  return invoke(registry_, trace_, *def, &kernel_, args);
}

}  // namespace sb
