// Tracing hook (model_tracer builds only). The registry reports every kernel
// invocation here; a normal build passes nullptr and pays one branch.
#pragma once

#include "sb/kernel.h"

namespace sb {

class TraceSink {
 public:
  // `caller` is nullptr for ops the program calls directly (root ops).
  virtual void on_invoke(const KernelDef& def, const KernelDef* caller, Args args) = 0;

 protected:
  ~TraceSink() = default;
};

}  // namespace sb
