// The model tracer's sink: records each distinct (op, caller, kernel key)
// the runtime invokes, and writes them as tab-separated lines:
//
//   <op>\t<caller op, or "-" for a root op>\t<kernel key, "v1/6;0,1|...">
//
// Only tracing builds (SB_TRACING) link it.
#pragma once

#include <set>
#include <string>

#include "sb/error.h"
#include "sb/trace.h"

namespace sb::runner {

class TraceRecorder final : public TraceSink {
 public:
  void on_invoke(const KernelDef& def, const KernelDef* caller, Args args) override;
  Error write(const std::string& path) const;

 private:
  std::set<std::string> records_;
};

}  // namespace sb::runner
