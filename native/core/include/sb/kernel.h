// What a kernel is, and how a kernel calls another op through the dispatcher.
//
// Each kernel file defines one `const KernelDef` per op it implements:
//
//   const KernelDef mean_out{"aten::mean.out", "TJbn|T", &mean_out_impl, kMeanCalls};
//
// `signature` lists the kinds of the op's arguments in schema order; the out
// arguments follow a '|' (the loader refuses a call that would write into
// constant data). A program's KernelCall passes one more, trailing
// value: what the op returns (the out tensor again, or a list of the outs);
// kernels ignore it. The loader checks every call site against the
// signature, so a kernel can read its arguments without re-checking tags:
//
//   T tensor          t optional tensor   L tensor list   O optional-tensor list
//   i int             n optional int      I int list      J optional int list
//   d double          b bool              D double list   E optional double list
//   s scalar          S optional scalar   z string        Z optional string
//   B bool list
//   W tensor the op writes in place, before any '|' (schema `Tensor(a!)`)
//
// Prim ops (sym-int arithmetic and views, kernels/prim) return
// something other than their out tensor; a '>' ends their argument kinds and
// gives the kind of the value the program passes last, or nothing when the
// call passes no returned value: "Ti>s" (sym_size: the returned value is an
// int, double or bool, which the kernel overwrites), "TI>T", "WTs>".
//
// `calls` names every op the kernel may invoke through KernelContext::call.
// The loader resolves them transitively, so a build that lacks one fails at
// load time, naming the op and the kernel that needs it, not mid-inference.
#pragma once

#include "sb/error.h"
#include "sb/span.h"
#include "sb/value.h"

namespace sb {

class KernelContext;
class OpRegistry;
class ThreadPool;
class TraceSink;

using Args = Span<Value* const>;
using KernelFn = Error (*)(KernelContext& ctx, Args args);

// Which tensor dim orders (see tensor.h) a kernel takes. The loader checks
// every call site's tensor arguments against its kernel's policy (dim orders
// are static in a program), so kernels never re-check them per call:
//   kDefaultOnly   every tensor has the contiguous dim order (the default);
//   kSameDimOrder  every tensor of rank >= 1 has one dim order (0-d tensors
//                  have none): layout-agnostic element-wise kernels, whose
//                  loops run over memory order (util/elementwise.h);
//   kAny           the kernel reads each tensor's dim order itself.
enum class LayoutPolicy : uint8_t { kDefaultOnly, kSameDimOrder, kAny };

struct KernelDef {
  const char* op;         // full name, e.g. "aten::add.out"
  const char* signature;  // argument kinds, see above
  KernelFn fn;
  Span<const char* const> calls;  // ops this kernel dispatches to
  LayoutPolicy layout = LayoutPolicy::kDefaultOnly;
};

// Checks the dim orders of `args`' tensors (list members too) against
// `def.layout`; `values` is the program's value table the arguments point
// into, so the one-line message names the op, the dim order and the value:
// "aten::foo.out does not take dim order [0, 2, 3, 1] (value 5)".
Error check_layout(const KernelDef& def, Args args, const Value* values);

enum class CallSite : uint8_t {
  kProgram,     // a KernelCall: args end with the returned value
  kDispatcher,  // KernelContext::call: exactly the schema arguments
};

// Checks `args` against `def.signature`; the message names the op and argument.
Error check_signature(const KernelDef& def, Args args, CallSite site);

// Number of arguments `def` takes (the signature without its '|' and return).
size_t arity(const KernelDef& def);

// Kind of the value a program call passes after the arguments: 'R' (an out
// tensor or tensor list: every out variant), a kind letter after '>', or '\0'
// when the call passes none.
char returned_kind(const KernelDef& def);

// Whether argument `i` of a call is written (an out argument, or the
// returned value a program call passes last).
bool is_output(const KernelDef& def, size_t i);

// Runs `def` on `args`; `caller` is the kernel that dispatched to it, or
// nullptr for a call straight from the program. `callees`, when given, is
// what OpRegistry::resolve_calls() found for `def.calls`, resolved once at
// load so that the kernel's calls skip the search by name. `threads` is
// the pool the kernel (and the ops it calls) may split its loops over, or
// nullptr.
Error invoke(const OpRegistry& registry, TraceSink* trace, const KernelDef& def,
             const KernelDef* caller, Args args, const KernelDef* const* callees = nullptr,
             ThreadPool* threads = nullptr);

class KernelContext {
 public:
  KernelContext(const OpRegistry& registry, TraceSink* trace, const KernelDef& kernel,
                const KernelDef* const* callees = nullptr, ThreadPool* threads = nullptr)
      : registry_(registry), trace_(trace), kernel_(kernel), callees_(callees), threads_(threads) {}

  // Calls another op by full name, as ATen composite kernels do. The op must
  // be listed in this kernel's `calls`.
  Error call(const char* op, Args args);

  const KernelDef& kernel() const { return kernel_; }

  // The pool to split loops over (sb/thread_pool.h's parallelize_*), or
  // nullptr: run on the calling thread.
  ThreadPool* threads() const { return threads_; }

 private:
  const OpRegistry& registry_;
  TraceSink* trace_;
  const KernelDef& kernel_;
  const KernelDef* const* callees_;  // parallel to kernel_.calls, or nullptr
  ThreadPool* threads_;
};

}  // namespace sb
