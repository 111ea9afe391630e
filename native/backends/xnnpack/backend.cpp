// XnnpackBackend: runs the XNNPACK delegates of ExecuTorch programs with our
// own kernels. init() reads the payload (graph.h) and compiles it into a plan
// (plan.h) in the method's memory; execute() runs the plan, allocating
// nothing. Each node kind × dtype is an op of kernels/xnnpack, so a build
// holds exactly the node kinds its programs use.
#include "sb/backend.h"

#include <new>

#include "graph.h"
#include "plan.h"

namespace sb::xnnpack {
namespace {

struct Delegate {
  Graph graph;
  Plan plan;
};

class XnnpackBackend final : public BackendInterface {
 public:
  // XNNPACK's compile specs are hints (fp16 inference, sparsity) that our kernels do not need.
  Result<void*> init(BackendInitContext& context, Span<const uint8_t> processed,
                     Span<const CompileSpec> /*compile_specs*/) const override {
    Result<void*> memory = context.allocate(sizeof(Delegate), "the XNNPACK delegate");
    if (!memory.ok()) return memory.error;
    auto* delegate = new (memory.value) Delegate();
    Error err = parse_graph(context, processed, &delegate->graph);
    if (!err.ok()) return err;
    err = compile_plan(context, delegate->graph, &delegate->plan);
    if (!err.ok()) return err;
    return memory.value;
  }

  Error execute(const BackendExecutionContext& context, void* handle, Args args) const override {
    return run_plan(static_cast<const Delegate*>(handle)->plan, context, args);
  }
};

const XnnpackBackend kBackend;

}  // namespace

extern const Backend backend{"XnnpackBackend", &kBackend, "xnnpack"};

}  // namespace sb::xnnpack
