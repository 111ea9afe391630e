// An executable method (a program's "forward"): the values table, the
// memory-planned buffers and the resolved instruction list. Everything is
// allocated and validated by load(), within the memory budget of its
// RuntimeLimits; execute() does not allocate and stops at its work budget.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sb/error.h"
#include "sb/kernel.h"
#include "sb/limits.h"
#include "sb/program.h"
#include "sb/registry.h"
#include "sb/value.h"

namespace sb {

class Method {
 public:
  Method() = default;
  ~Method();
  Method(const Method&) = delete;
  Method& operator=(const Method&) = delete;

  // `label` names the model in error messages (e.g. its file name).
  Error load(const Program& program, const char* method_name, const OpRegistry& registry, const char* label,
             const RuntimeLimits& limits = RuntimeLimits());

  size_t num_inputs() const { return num_inputs_; }
  size_t num_outputs() const { return num_outputs_; }
  const Value& input(size_t i) const { return values_[input_index_[i]]; }
  const Value& output(size_t i) const { return values_[output_index_[i]]; }

  // Copies `src` into input i. The dtype must match the program's; so must
  // the shape, unless the input is dynamic: then it takes src's shape, which
  // must keep its rank and fit its bound (the program's sizes). Elements are
  // read in src's dim order and stored in the input's (the program's).
  Error set_input(size_t i, const Tensor& src);
  Error set_input(size_t i, const Value& scalar);

  // Runs the chain once, within the work budget and deadline of the limits
  // given to load() (or set since).
  Error execute();
  void set_limits(const RuntimeLimits& limits) { limits_ = limits; }
  // Bytes load() allocated for this method (what the memory budget counts).
  uint64_t memory_used() const { return memory_used_; }
  // Work the last execute() did, in the units of RuntimeLimits::work_bytes.
  uint64_t last_work() const { return last_work_; }

  // Receives every kernel invocation (tracing builds); nullptr disables.
  void set_trace(TraceSink* trace) { trace_ = trace; }

  // The ops this method calls directly, in program order of first use.
  size_t num_operators() const { return num_operators_; }
  const KernelDef& op(size_t i) const { return *operators_[i]; }

 private:
  struct Instruction;
  struct DynamicList;
  struct Delegate;
  class Loader;

  void release();
  uint64_t instruction_cost(const Instruction& ins) const;
  Error prepare_call(size_t pc, const Instruction& ins);

  const OpRegistry* registry_ = nullptr;
  TraceSink* trace_ = nullptr;

  Value* values_ = nullptr;
  size_t num_values_ = 0;
  Tensor* tensors_ = nullptr;
  void* list_storage_ = nullptr;  // backing for int/double/bool/tensor lists
  uint8_t** planned_ = nullptr;   // memory-planned buffers, by memory_id
  size_t num_planned_ = 0;
  uint8_t** input_buffers_ = nullptr;  // inputs that are not memory-planned
  size_t num_input_buffers_ = 0;

  RuntimeLimits limits_;
  uint64_t memory_used_ = 0;
  uint64_t last_work_ = 0;

  const KernelDef** operators_ = nullptr;
  size_t num_operators_ = 0;
  Instruction* instructions_ = nullptr;
  size_t num_instructions_ = 0;
  Value** arg_storage_ = nullptr;

  // Symbolic sizes: int lists whose items a prim op (or set_input) writes are
  // re-read from their items before each call that takes them; values a prim
  // op returns into may change between int, double and bool, so a call that
  // reads one has its signature checked again before it runs.
  uint8_t* value_flags_ = nullptr;        // per value: kRetaggable, kWritten
  uint32_t* dynamic_list_of_ = nullptr;   // per value: index into dynamic_lists_, or kNoList
  DynamicList* dynamic_lists_ = nullptr;
  size_t num_dynamic_lists_ = 0;
  uint32_t* dynamic_items_ = nullptr;     // value indices of their items

  uint32_t* input_index_ = nullptr;
  size_t num_inputs_ = 0;
  uint32_t* output_index_ = nullptr;
  size_t num_outputs_ = 0;

  // Delegates (sb/backend.h): each initialised one's backend and handle, and
  // the memory their init() allocated (a list, freed with the method). Last,
  // so a runtime without delegates (SB_DELEGATES=0, which never uses them)
  // keeps the other members where they were.
  [[maybe_unused]] Delegate* delegates_ = nullptr;
  [[maybe_unused]] size_t num_delegates_ = 0;
  [[maybe_unused]] void* delegate_memory_ = nullptr;
};

}  // namespace sb
