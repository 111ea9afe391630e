#include "sb/method.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "flatbuffer.h"
#include "schema.h"

namespace sb {

struct Method::Instruction {
  uint8_t type;
  const KernelDef* kernel;  // kKernelCall
  Value** args;             // kKernelCall
  uint32_t num_args;
  uint32_t a;  // move source / jump condition
  uint32_t b;  // move destination / jump target
};

namespace {

// Planned memory comes from the file; a corrupt size must not drive a huge
// allocation.
#ifndef SB_MAX_PLANNED_BYTES
#define SB_MAX_PLANNED_BYTES (1ULL << 30)
#endif
constexpr uint64_t kMaxPlannedBytes = SB_MAX_PLANNED_BYTES;
// Stops a corrupt program whose jumps loop forever.
constexpr uint64_t kMaxStepsPerInstruction = 1 << 16;
constexpr int64_t kMaxElements = int64_t{1} << 40;

Error invalid(const char* format, unsigned a, unsigned b = 0) {
  char what[128];
  snprintf(what, sizeof what, format, a, b);
  return Error::make(ErrorCode::kInvalidProgram, "invalid program: %s", what);
}

bool supported_dtype(int8_t t) {
  switch (static_cast<ScalarType>(t)) {
    case ScalarType::kByte:
    case ScalarType::kChar:
    case ScalarType::kShort:
    case ScalarType::kInt:
    case ScalarType::kLong:
    case ScalarType::kFloat:
    case ScalarType::kDouble:
    case ScalarType::kBool:
      return true;
    default:
      return false;
  }
}

bool is_constant(const Tensor* t, const Program& program) {
  const auto* p = static_cast<const uint8_t*>(t ? t->data : nullptr);
  return p != nullptr && p >= program.data() && p < program.data() + program.size();
}

// Outputs must be planned memory; constants live in the caller's program bytes.
bool writes_constant(const Value& v, const Program& program) {
  if (v.is_tensor()) return is_constant(v.as_tensor, program);
  if (v.tag == Tag::kTensorList || v.tag == Tag::kOptionalTensorList) {
    for (const Tensor* t : v.as_tensor_list) {
      if (is_constant(t, program)) return true;
    }
  }
  return false;
}

template <typename T>
T* alloc_array(size_t n) {
  return static_cast<T*>(calloc(n == 0 ? 1 : n, sizeof(T)));
}

// Bytes a list value needs in list storage, rounded to 8 for alignment.
size_t list_bytes(uint8_t type, uint32_t length) {
  switch (type) {
    case schema::kIntList:
    case schema::kDoubleList:
    case schema::kTensorList:
    case schema::kOptionalTensorList:
      return size_t{length} * 8;
    case schema::kBoolList:
      return (size_t{length} + 7) / 8 * 8;
    default:
      return 0;
  }
}

}  // namespace

Method::~Method() { release(); }

void Method::release() {
  for (size_t i = 0; planned_ != nullptr && i < num_planned_; ++i) free(planned_[i]);
  free(planned_);
  free(values_);
  free(tensors_);
  free(list_storage_);
  free(operators_);
  free(instructions_);
  free(arg_storage_);
  free(input_index_);
  free(output_index_);
  planned_ = nullptr;
  num_planned_ = 0;
  values_ = nullptr;
  num_values_ = 0;
  tensors_ = nullptr;
  list_storage_ = nullptr;
  operators_ = nullptr;
  num_operators_ = 0;
  instructions_ = nullptr;
  num_instructions_ = 0;
  arg_storage_ = nullptr;
  input_index_ = nullptr;
  num_inputs_ = 0;
  output_index_ = nullptr;
  num_outputs_ = 0;
}

Error Method::load(const Program& program, const char* method_name, const OpRegistry& registry, const char* label) {
  release();
  registry_ = &registry;
  fb::Reader r(program.data(), program.flatbuffer_size());
  const fb::Table root = r.root();
  const fb::Vector plans = r.vector(root, schema::program::kExecutionPlan, 4);

  fb::Table plan;
  for (uint32_t i = 0; i < plans.length && !r.failed(); ++i) {
    const fb::Table candidate = r.table_element(plans, i);
    const fb::String name = r.string(candidate, schema::plan::kName);
    if (name.length == strlen(method_name) && memcmp(name.data, method_name, name.length) == 0) plan = candidate;
  }
  if (r.failed()) return invalid("execution plan table is out of bounds", 0);
  if (!plan.present) return Error::make(ErrorCode::kInvalidArgument, "program has no method '%s'", method_name);

  // Memory-planned buffers. Entry 0 is reserved by the format.
  const fb::Vector buffer_sizes = r.vector(plan, schema::plan::kNonConstBufferSizes, 8);
  uint64_t planned_total = 0;
  num_planned_ = buffer_sizes.length;
  planned_ = alloc_array<uint8_t*>(num_planned_);
  if (planned_ == nullptr) return Error::make(ErrorCode::kOutOfMemory, "out of memory for the memory plan");
  for (uint32_t i = 1; i < buffer_sizes.length; ++i) {
    const int64_t size = r.element<int64_t>(buffer_sizes, i);
    if (size < 0 || static_cast<uint64_t>(size) > kMaxPlannedBytes - planned_total) {
      return invalid("planned buffer %u has an impossible size", i);
    }
    planned_total += static_cast<uint64_t>(size);
    planned_[i] = alloc_array<uint8_t>(static_cast<size_t>(size));
    if (planned_[i] == nullptr) return Error::make(ErrorCode::kOutOfMemory, "out of memory for planned buffer %u", i);
  }
  auto planned_size = [&](uint32_t id) { return static_cast<uint64_t>(r.element<int64_t>(buffer_sizes, id)); };

  // Values, pass 1: count tensors and list storage.
  const fb::Vector values = r.vector(plan, schema::plan::kValues, 4);
  num_values_ = values.length;
  size_t num_tensors = 0;
  size_t storage_bytes = 0;
  for (uint32_t i = 0; i < values.length && !r.failed(); ++i) {
    const fb::Table ev = r.table_element(values, i);
    const uint8_t type = r.scalar<uint8_t>(ev, schema::evalue::kValType, 0);
    const fb::Table val = r.table(ev, schema::evalue::kVal);
    if (type == schema::kTensor) ++num_tensors;
    if (list_bytes(type, 1) != 0) {
      const uint32_t element = type == schema::kBoolList ? 1 : (type == schema::kTensorList || type == schema::kOptionalTensorList) ? 4 : 8;
      storage_bytes += list_bytes(type, r.vector(val, 0, element).length);
    }
  }
  if (r.failed()) return invalid("values table is out of bounds (at byte %u)", static_cast<unsigned>(r.failed_at()));

  values_ = alloc_array<Value>(num_values_);
  tensors_ = alloc_array<Tensor>(num_tensors);
  list_storage_ = calloc(storage_bytes == 0 ? 1 : storage_bytes, 1);
  if (!values_ || !tensors_ || !list_storage_) return Error::make(ErrorCode::kOutOfMemory, "out of memory for values");

  // Pass 2: scalars and tensors. Lists refer to other values, so they come after.
  size_t tensor_count = 0;
  for (uint32_t i = 0; i < values.length; ++i) {
    const fb::Table ev = r.table_element(values, i);
    const uint8_t type = r.scalar<uint8_t>(ev, schema::evalue::kValType, 0);
    const fb::Table val = r.table(ev, schema::evalue::kVal);
    Value& v = values_[i];
    switch (type) {
      case schema::kNone:
      case schema::kNull:
        v = Value::none();
        break;
      case schema::kInt:
        v = Value::from_int(r.scalar<int64_t>(val, 0, 0));
        break;
      case schema::kBool:
        v = Value::from_bool(r.scalar<uint8_t>(val, 0, 0) != 0);
        break;
      case schema::kDouble:
        v = Value::from_double(r.scalar<double>(val, 0, 0.0));
        break;
      case schema::kString: {
        const fb::String s = r.string(val, 0);
        v.tag = Tag::kString;
        v.as_string = Span<const char>(s.data, s.length);
        break;
      }
      case schema::kTensor: {
        Tensor& t = tensors_[tensor_count++];
        const int8_t dtype = r.scalar<int8_t>(val, schema::tensor::kScalarType, 0);
        const fb::Vector sizes = r.vector(val, schema::tensor::kSizes, 4);
        const fb::Vector dim_order = r.vector(val, schema::tensor::kDimOrder, 1);
        if (r.failed()) return invalid("tensor value %u is out of bounds", i);
        if (!supported_dtype(dtype)) {
          return Error::make(ErrorCode::kNotSupported, "tensor value %u has dtype %d, which this runtime does not support",
                             i, dtype);
        }
        if (sizes.length > static_cast<uint32_t>(kMaxDims)) return invalid("tensor value %u has %u dims", i, sizes.length);
        t.dtype = static_cast<ScalarType>(dtype);
        t.dim = static_cast<int32_t>(sizes.length);
        int64_t numel = 1;
        for (uint32_t d = 0; d < sizes.length; ++d) {
          const int32_t s = r.element<int32_t>(sizes, d);
          if (s < 0) return invalid("tensor value %u has a negative size in dim %u", i, d);
          t.sizes[d] = s;
          numel *= s;
          if (numel > kMaxElements) return invalid("tensor value %u is impossibly large", i);
        }
        if (dim_order.length != 0) {
          if (dim_order.length != sizes.length) return invalid("tensor value %u has a dim order of the wrong length", i);
          for (uint32_t d = 0; d < dim_order.length; ++d) {
            if (r.element<uint8_t>(dim_order, d) != d) {
              return Error::make(ErrorCode::kNotSupported,
                                 "tensor value %u uses a non-contiguous dim order; only contiguous tensors are supported", i);
            }
          }
        }
        if (r.scalar<int32_t>(val, schema::tensor::kStorageOffset, 0) != 0) {
          return Error::make(ErrorCode::kNotSupported, "tensor value %u has a storage offset", i);
        }
        const fb::Table extra = r.table(val, schema::tensor::kExtraTensorInfo);
        if (r.scalar<int8_t>(extra, schema::extra_tensor_info::kLocation, 0) == schema::extra_tensor_info::kExternal) {
          return Error::make(ErrorCode::kNotSupported, "tensor value %u keeps its data outside the .pte file", i);
        }
        const size_t nbytes = t.nbytes();
        const uint32_t buffer_idx = r.scalar<uint32_t>(val, schema::tensor::kDataBufferIdx, 0);
        const fb::Table alloc = r.table(val, schema::tensor::kAllocationInfo);
        if (alloc.present) {
          const uint32_t id = r.scalar<uint32_t>(alloc, schema::allocation::kMemoryId, 0);
          const uint64_t offset = r.scalar<uint32_t>(alloc, schema::allocation::kOffsetLow, 0) |
                                  (uint64_t{r.scalar<uint32_t>(alloc, schema::allocation::kOffsetHigh, 0)} << 32);
          if (id == 0 || id >= num_planned_) return invalid("tensor value %u names memory %u, which is not planned", i, id);
          if (offset > planned_size(id) || nbytes > planned_size(id) - offset) {
            return invalid("tensor value %u overruns planned buffer %u", i, id);
          }
          if (buffer_idx != 0) {
            return Error::make(ErrorCode::kNotSupported, "tensor value %u is mutable state with an initial value", i);
          }
          t.data = planned_[id] + offset;
        } else if (buffer_idx != 0) {
          Result<const uint8_t*> data = program.constant_data(buffer_idx, nbytes);
          if (!data.ok()) return data.error;
          t.data = const_cast<uint8_t*>(data.value);  // constants are never kernel outputs
        }
        // Kernels read elements as their type: the data must be aligned for it.
        if (t.data != nullptr && reinterpret_cast<uintptr_t>(t.data) % element_size(t.dtype) != 0) {
          return invalid("tensor value %u has misaligned data", i);
        }
        v = Value::from_tensor(&t);
        break;
      }
      case schema::kIntList:
      case schema::kDoubleList:
      case schema::kBoolList:
      case schema::kTensorList:
      case schema::kOptionalTensorList:
        break;  // pass 3
      default:
        return invalid("value %u has unknown type %u", i, type);
    }
    if (r.failed()) return invalid("value %u is out of bounds", i);
  }

  // Pass 3: lists.
  uint8_t* storage = static_cast<uint8_t*>(list_storage_);
  for (uint32_t i = 0; i < values.length; ++i) {
    const fb::Table ev = r.table_element(values, i);
    const uint8_t type = r.scalar<uint8_t>(ev, schema::evalue::kValType, 0);
    const fb::Table val = r.table(ev, schema::evalue::kVal);
    Value& v = values_[i];
    switch (type) {
      case schema::kIntList: {
        // Items are indices of Int values (so symbolic ints can be shared).
        const fb::Vector items = r.vector(val, 0, 8);
        int64_t* out = reinterpret_cast<int64_t*>(storage);
        for (uint32_t k = 0; k < items.length; ++k) {
          const int64_t idx = r.element<int64_t>(items, k);
          if (idx < 0 || static_cast<uint64_t>(idx) >= num_values_ || values_[idx].tag != Tag::kInt) {
            return invalid("int list value %u refers to a value that is not an int (item %u)", i, k);
          }
          out[k] = values_[idx].as_int;
        }
        v = Value::from_int_list(Span<const int64_t>(out, items.length));
        storage += list_bytes(type, items.length);
        break;
      }
      case schema::kDoubleList: {
        const fb::Vector items = r.vector(val, 0, 8);
        double* out = reinterpret_cast<double*>(storage);
        for (uint32_t k = 0; k < items.length; ++k) out[k] = r.element<double>(items, k);
        v = Value::from_double_list(Span<const double>(out, items.length));
        storage += list_bytes(type, items.length);
        break;
      }
      case schema::kBoolList: {
        const fb::Vector items = r.vector(val, 0, 1);
        bool* out = reinterpret_cast<bool*>(storage);
        for (uint32_t k = 0; k < items.length; ++k) out[k] = r.element<uint8_t>(items, k) != 0;
        v.tag = Tag::kBoolList;
        v.as_bool_list = Span<const bool>(out, items.length);
        storage += list_bytes(type, items.length);
        break;
      }
      case schema::kTensorList:
      case schema::kOptionalTensorList: {
        const bool optional = type == schema::kOptionalTensorList;
        const fb::Vector items = r.vector(val, 0, 4);
        Tensor** out = reinterpret_cast<Tensor**>(storage);
        for (uint32_t k = 0; k < items.length; ++k) {
          const int32_t idx = r.element<int32_t>(items, k);
          const bool in_range = idx >= 0 && static_cast<uint32_t>(idx) < num_values_;
          if (in_range && values_[idx].tag == Tag::kTensor) {
            out[k] = values_[idx].as_tensor;
          } else if (optional && (idx == -1 || (in_range && values_[idx].tag == Tag::kNone))) {
            out[k] = nullptr;
          } else {
            return invalid("tensor list value %u refers to a value that is not a tensor (item %u)", i, k);
          }
        }
        v.tag = optional ? Tag::kOptionalTensorList : Tag::kTensorList;
        v.as_tensor_list = Span<Tensor* const>(out, items.length);
        storage += list_bytes(type, items.length);
        break;
      }
      default:
        break;
    }
    if (r.failed()) return invalid("list value %u is out of bounds", i);
  }

  // Inputs and outputs.
  auto read_indices = [&](int field, uint32_t** out, size_t* count, const char* what) -> Error {
    const fb::Vector v = r.vector(plan, field, 4);
    *count = v.length;
    *out = alloc_array<uint32_t>(v.length);
    if (*out == nullptr) return Error::make(ErrorCode::kOutOfMemory, "out of memory for %s", what);
    for (uint32_t k = 0; k < v.length; ++k) {
      const int32_t idx = r.element<int32_t>(v, k);
      if (idx < 0 || static_cast<uint32_t>(idx) >= num_values_) {
        return Error::make(ErrorCode::kInvalidProgram, "invalid program: %s %u refers to value %d of %zu", what, k, idx,
                           num_values_);
      }
      (*out)[k] = static_cast<uint32_t>(idx);
    }
    return r.failed() ? invalid("input/output table is out of bounds", 0) : Error();
  };
  Error err = read_indices(schema::plan::kInputs, &input_index_, &num_inputs_, "input");
  if (!err.ok()) return err;
  if (!(err = read_indices(schema::plan::kOutputs, &output_index_, &num_outputs_, "output")).ok()) return err;
  for (size_t k = 0; k < num_inputs_; ++k) {
    Value& in = values_[input_index_[k]];
    if (in.is_tensor() && in.as_tensor->data == nullptr) {
      // Not memory-planned: give the input its own buffer so set_input copies.
      in.as_tensor->data = calloc(in.as_tensor->nbytes() == 0 ? 1 : in.as_tensor->nbytes(), 1);
      if (in.as_tensor->data == nullptr) return Error::make(ErrorCode::kOutOfMemory, "out of memory for input %zu", k);
      // Track it with the planned buffers so release() frees it.
      uint8_t** grown = static_cast<uint8_t**>(realloc(planned_, (num_planned_ + 1) * sizeof(uint8_t*)));
      if (grown == nullptr) return Error::make(ErrorCode::kOutOfMemory, "out of memory for input %zu", k);
      planned_ = grown;
      planned_[num_planned_++] = static_cast<uint8_t*>(in.as_tensor->data);
    }
  }

  // Operators: resolve each, with everything its kernel may call.
  const fb::Vector ops = r.vector(plan, schema::plan::kOperators, 4);
  num_operators_ = ops.length;
  operators_ = static_cast<const KernelDef**>(calloc(ops.length == 0 ? 1 : ops.length, sizeof(KernelDef*)));
  if (operators_ == nullptr) return Error::make(ErrorCode::kOutOfMemory, "out of memory for operators");
  for (uint32_t k = 0; k < ops.length; ++k) {
    const fb::Table op = r.table_element(ops, k);
    const fb::String name = r.string(op, schema::operator_::kName);
    const fb::String overload = r.string(op, schema::operator_::kOverload);
    if (r.failed()) return invalid("operator %u is out of bounds", k);
    char full[128];
    char base[96];
    char over[32];
    snprintf(base, sizeof base, "%.*s", static_cast<int>(name.length), name.data);
    snprintf(over, sizeof over, "%.*s", static_cast<int>(overload.length), overload.data);
    snprintf(full, sizeof full, overload.length ? "%s.%s" : "%s%s", base, over);
    for (char* p = full; *p; ++p) {
      if (static_cast<unsigned char>(*p) < 32 || static_cast<unsigned char>(*p) >= 127) *p = '?';
    }
    const KernelDef* def = registry.find(base, over);
    if (def == nullptr) return Error::make(ErrorCode::kMissingOperator, "missing operator %s (needed by %s)", full, label);
    if (!(err = registry.check_closure(*def, label)).ok()) return err;
    operators_[k] = def;
  }

  // Instructions (ExecuTorch programs run chain 0).
  const fb::Vector chains = r.vector(plan, schema::plan::kChains, 4);
  if (chains.length == 0) return invalid("method has no chain", 0);
  const fb::Table chain = r.table_element(chains, 0);
  const fb::Vector instructions = r.vector(chain, schema::chain::kInstructions, 4);
  if (r.failed()) return invalid("instruction table is out of bounds", 0);
  num_instructions_ = instructions.length;
  instructions_ = alloc_array<Instruction>(num_instructions_);
  size_t total_args = 0;
  for (uint32_t k = 0; k < instructions.length; ++k) {
    const fb::Table ins = r.table_element(instructions, k);
    if (r.scalar<uint8_t>(ins, schema::instruction::kArgsType, 0) == schema::kKernelCall) {
      total_args += r.vector(r.table(ins, schema::instruction::kArgs), schema::kernel_call::kArgs, 4).length;
    }
  }
  arg_storage_ = alloc_array<Value*>(total_args);
  if (!instructions_ || !arg_storage_) return Error::make(ErrorCode::kOutOfMemory, "out of memory for instructions");
  if (r.failed()) return invalid("instruction table is out of bounds", 0);

  Value** next_arg = arg_storage_;
  const fb::Vector delegates = r.vector(plan, schema::plan::kDelegates, 4);
  for (uint32_t k = 0; k < instructions.length; ++k) {
    const fb::Table ins = r.table_element(instructions, k);
    const uint8_t type = r.scalar<uint8_t>(ins, schema::instruction::kArgsType, 0);
    const fb::Table args = r.table(ins, schema::instruction::kArgs);
    Instruction& out = instructions_[k];
    out.type = type;
    switch (type) {
      case schema::kKernelCall: {
        const int32_t op_index = r.scalar<int32_t>(args, schema::kernel_call::kOpIndex, 0);
        const fb::Vector arg_list = r.vector(args, schema::kernel_call::kArgs, 4);
        if (op_index < 0 || static_cast<size_t>(op_index) >= num_operators_) {
          return invalid("instruction %u calls operator %d, which does not exist", k, static_cast<unsigned>(op_index));
        }
        out.kernel = operators_[op_index];
        out.args = next_arg;
        out.num_args = arg_list.length;
        for (uint32_t a = 0; a < arg_list.length; ++a) {
          const int32_t idx = r.element<int32_t>(arg_list, a);
          if (idx < 0 || static_cast<size_t>(idx) >= num_values_) {
            return invalid("instruction %u argument %u refers to a value out of range", k, a);
          }
          *next_arg++ = &values_[idx];
        }
        if (!(err = check_signature(*out.kernel, Args(out.args, out.num_args), CallSite::kProgram)).ok()) {
          return Error::make(ErrorCode::kInvalidProgram, "invalid program: instruction %u: %s", k, err.message());
        }
        for (uint32_t a = 0; a < out.num_args; ++a) {
          if (is_output(*out.kernel, a) && writes_constant(*out.args[a], program)) {
            return invalid("instruction %u would write into constant data (argument %u)", k, a);
          }
        }
        break;
      }
      case schema::kDelegateCall: {
        const int32_t index = r.scalar<int32_t>(args, schema::delegate_call::kDelegateIndex, 0);
        const fb::Table delegate = index >= 0 ? r.table_element(delegates, static_cast<uint32_t>(index)) : fb::Table{};
        const fb::String id = r.string(delegate, schema::delegate::kId);
        char backend[64] = "unknown";
        if (!r.failed() && id.length) snprintf(backend, sizeof backend, "%.*s", static_cast<int>(id.length), id.data);
        for (char* p = backend; *p; ++p) {
          if (static_cast<unsigned char>(*p) < 32 || static_cast<unsigned char>(*p) >= 127) *p = '?';
        }
        return Error::make(ErrorCode::kNotSupported,
                           "instruction %u delegates to backend '%s': delegate calls are not supported", k, backend);
      }
      case schema::kMoveCall: {
        out.a = static_cast<uint32_t>(r.scalar<int32_t>(args, schema::move_call::kFrom, 0));
        out.b = static_cast<uint32_t>(r.scalar<int32_t>(args, schema::move_call::kTo, 0));
        if (out.a >= num_values_ || out.b >= num_values_ || values_[out.a].tag != values_[out.b].tag) {
          return invalid("move instruction %u has bad value indices", k);
        }
        break;
      }
      case schema::kJumpFalseCall: {
        out.a = static_cast<uint32_t>(r.scalar<int32_t>(args, schema::jump_false_call::kCondition, 0));
        out.b = static_cast<uint32_t>(r.scalar<int32_t>(args, schema::jump_false_call::kDestination, 0));
        if (out.a >= num_values_ || out.b > num_instructions_) return invalid("jump instruction %u is out of range", k);
        break;
      }
      case schema::kFreeCall:
        break;
      default:
        return invalid("instruction %u has unknown type %u", k, type);
    }
    if (r.failed()) return invalid("instruction %u is out of bounds", k);
  }

  // Every tensor a kernel touches must have memory by now.
  for (size_t k = 0; k < num_values_; ++k) {
    const Value& v = values_[k];
    if (v.is_tensor() && v.as_tensor->data == nullptr && v.as_tensor->nbytes() != 0) {
      return invalid("tensor value %u has no memory (not planned, not constant, not an input)", static_cast<unsigned>(k));
    }
  }
  return Error();
}

Error Method::set_input(size_t i, const Tensor& src) {
  if (i >= num_inputs_) return Error::make(ErrorCode::kInvalidArgument, "input %zu out of range (%zu inputs)", i, num_inputs_);
  Value& v = values_[input_index_[i]];
  if (!v.is_tensor()) return Error::make(ErrorCode::kInvalidArgument, "input %zu is a %s, not a tensor", i, tag_name(v.tag));
  Tensor& dst = *v.as_tensor;
  if (src.dtype != dst.dtype) {
    return Error::make(ErrorCode::kInvalidArgument, "input %zu has dtype %s, the model expects %s", i,
                       scalar_type_name(src.dtype), scalar_type_name(dst.dtype));
  }
  if (!same_shape(src, dst)) return Error::make(ErrorCode::kInvalidArgument, "input %zu has the wrong shape", i);
  if (dst.nbytes() != 0) memcpy(dst.data, src.data, dst.nbytes());
  return Error();
}

Error Method::set_input(size_t i, const Value& scalar) {
  if (i >= num_inputs_) return Error::make(ErrorCode::kInvalidArgument, "input %zu out of range (%zu inputs)", i, num_inputs_);
  Value& v = values_[input_index_[i]];
  if (v.tag != scalar.tag || v.is_tensor()) {
    return Error::make(ErrorCode::kInvalidArgument, "input %zu is a %s, got a %s", i, tag_name(v.tag), tag_name(scalar.tag));
  }
  v = scalar;
  return Error();
}

Error Method::execute() {
  const uint64_t max_steps = (num_instructions_ + 1) * kMaxStepsPerInstruction;
  uint64_t steps = 0;
  for (size_t pc = 0; pc < num_instructions_;) {
    if (++steps > max_steps) return Error::make(ErrorCode::kInvalidProgram, "invalid program: execution does not terminate");
    const Instruction& ins = instructions_[pc];
    switch (ins.type) {
      case schema::kKernelCall: {
        Error err = invoke(*registry_, trace_, *ins.kernel, nullptr, Args(ins.args, ins.num_args));
        if (!err.ok()) return err;
        ++pc;
        break;
      }
      case schema::kMoveCall:
        values_[ins.b] = values_[ins.a];
        ++pc;
        break;
      case schema::kJumpFalseCall: {
        const Value& cond = values_[ins.a];
        const bool truth = cond.tag == Tag::kBool ? cond.as_bool
                           : cond.is_tensor()     ? (cond.as_tensor->nbytes() && *cond.as_tensor->data_as<uint8_t>())
                                                  : cond.scalar_as_int() != 0;
        pc = truth ? pc + 1 : ins.b;
        break;
      }
      default:  // FreeCall: memory is planned, nothing to release.
        ++pc;
        break;
    }
  }
  return Error();
}

}  // namespace sb
