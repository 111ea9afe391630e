#include "sb/method.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "sb/backend.h"
#include "sb/checked.h"
#include "sb/flatbuffer.h"
#include "features.h"
#include "schema.h"

// SB_DELEGATES: whether this runtime runs delegates (sb/backend.h). Off, the
// loader still names every backend a program needs in its missing-ops error,
// and nothing else of the delegate machinery is compiled in.
#ifndef SB_DELEGATES
#define SB_DELEGATES 0
#endif

namespace sb {

struct Method::Instruction {
  uint8_t type;
  uint8_t flags;            // kRecheck, kRefreshLists, kVariableCost
  uint32_t num_args;
  const KernelDef* kernel;  // kKernelCall
  Value** args;             // kKernelCall, kDelegateCall
  uint32_t a;  // move source / jump condition / delegate index
  uint32_t b;  // move destination / jump target / a delegate call's constant arguments (bit mask)
  // What running it costs against the work budget (see instruction_cost),
  // counted once at load; with kVariableCost, the bytes of the values whose
  // size can change as it runs are added when it runs.
  uint64_t cost;
};

struct Method::Delegate {
  const Backend* backend;  // nullptr until its init() succeeded
  void* handle;
};

struct Method::DynamicList {
  int64_t* storage;      // the list's values, as kernels read them
  const uint32_t* items;  // the values they come from
  uint32_t length;
};

#if SB_BARE_METAL
// No operating system clock: firmware with a timer defines sb::monotonic_ns()
// itself; without one, a deadline never passes (the work budget still holds).
__attribute__((weak)) uint64_t monotonic_ns() { return 0; }
#else
uint64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<uint64_t>(ts.tv_sec) * 1000000000u + static_cast<uint64_t>(ts.tv_nsec);
}
#endif

namespace {

// Method::value_flags_
constexpr uint8_t kRetaggable = 1;  // a prim op returns into it: int, double or bool by turns
constexpr uint8_t kWritten = 2;     // set while running (by a prim op, a move or set_input)
constexpr uint8_t kVariableBytes = 4;  // its value_bytes can change while running
// Instruction::flags
constexpr uint8_t kRecheck = 1;       // reads a retaggable value: check the signature again
constexpr uint8_t kRefreshLists = 2;  // takes an int list with written items: re-read it
constexpr uint8_t kVariableCost = 4;  // reads a kVariableBytes value: add its bytes when it runs
constexpr uint32_t kNoList = UINT32_MAX;

bool is_scalar_tag(Tag t) { return t == Tag::kInt || t == Tag::kDouble || t == Tag::kBool; }

Error invalid(const char* format, unsigned a, unsigned b = 0) { return Error::invalid_program(format, a, b); }

bool supported_dtype(int8_t t) {
  switch (static_cast<ScalarType>(t)) {
    case ScalarType::kByte:
    case ScalarType::kChar:
    case ScalarType::kShort:
    case ScalarType::kInt:
    case ScalarType::kLong:
    case ScalarType::kHalf:
    case ScalarType::kFloat:
    case ScalarType::kDouble:
    case ScalarType::kComplexHalf:
    case ScalarType::kComplexFloat:
    case ScalarType::kComplexDouble:
    case ScalarType::kBool:
    case ScalarType::kBFloat16:
      return true;
    default:
      return false;
  }
}

// Constant data lives in the caller's program bytes or in its data files.
bool is_constant(const Tensor* t, const Program& program) { return t != nullptr && program.holds(t->data); }

bool is_list(uint8_t type) {
  return type == schema::kIntList || type == schema::kDoubleList || type == schema::kBoolList ||
         type == schema::kTensorList || type == schema::kOptionalTensorList;
}

// Bytes of one item of a list in the file.
uint32_t file_item_size(uint8_t type) {
  return type == schema::kBoolList ? 1 : (type == schema::kTensorList || type == schema::kOptionalTensorList) ? 4 : 8;
}

// Bytes a list value needs in list storage, rounded to 8 for alignment.
uint64_t list_bytes(uint8_t type, uint32_t length) {
  return type == schema::kBoolList ? (uint64_t{length} + 7) / 8 * 8 : uint64_t{length} * 8;
}

// Work a kernel does with an argument: the bytes it may read or write.
uint64_t value_bytes(const Value& v) {
  switch (v.tag) {
    case Tag::kTensor:
      return v.as_tensor->nbytes();
    case Tag::kTensorList:
    case Tag::kOptionalTensorList: {
      uint64_t bytes = sat_mul(v.as_tensor_list.size(), sizeof(Tensor*));
      for (const Tensor* t : v.as_tensor_list) bytes = sat_add(bytes, t ? t->nbytes() : 0);
      return bytes;
    }
    case Tag::kIntList:
      return sat_mul(v.as_int_list.size(), sizeof(int64_t));
    case Tag::kDoubleList:
      return sat_mul(v.as_double_list.size(), sizeof(double));
    case Tag::kBoolList:
      return v.as_bool_list.size();
    case Tag::kString:
      return v.as_string.size();
    default:
      return 0;
  }
}

// Counts what load() allocates against RuntimeLimits::memory_bytes, and
// checks each allocation before making it.
class MemoryBudget {
 public:
  explicit MemoryBudget(uint64_t limit) : limit_(limit) {}
  uint64_t used() const { return used_; }

  // Zeroed memory for `count` objects of `size` bytes.
  Error alloc(void** out, uint64_t count, uint64_t size, const char* what) {
    const uint64_t bytes = sat_mul(count, size);
    const uint64_t total = sat_add(used_, bytes);
    if (total > limit_ || bytes > SIZE_MAX) {
      if (total == kSaturated) {
        return Error::make(ErrorCode::kMemoryBudget,
                           "program needs more memory than can be counted (%s), over the memory budget of %llu bytes",
                           what, static_cast<unsigned long long>(limit_));
      }
      return Error::make(ErrorCode::kMemoryBudget,
                         "program needs at least %llu bytes (%s), over the memory budget of %llu bytes",
                         static_cast<unsigned long long>(total), what, static_cast<unsigned long long>(limit_));
    }
    *out = calloc(bytes == 0 ? 1 : static_cast<size_t>(bytes), 1);
    if (*out == nullptr) {
      return Error::make(ErrorCode::kOutOfMemory, "out of memory for %s (%llu bytes)", what,
                         static_cast<unsigned long long>(bytes));
    }
    used_ = total;
    return Error();
  }

  template <typename T>
  Error alloc(T** out, uint64_t count, const char* what) {
    void* p = nullptr;
    Error err = alloc(&p, count, sizeof(T), what);
    *out = static_cast<T*>(p);
    return err;
  }

 private:
  uint64_t limit_;
  uint64_t used_ = 0;
};

// A list value, keyed by where its items are in the file: values whose lists
// share one vector (a hostile program can point thousands of values at one
// large vector) share one storage, so load() is linear in the file size.
struct ListRef {
  uint32_t items_pos;
  uint32_t length;
  uint8_t type;
  uint32_t value;
};

bool same_items(const ListRef& a, const ListRef& b) { return a.type == b.type && a.items_pos == b.items_pos; }

int compare_list_refs(const void* pa, const void* pb) {
  const auto* a = static_cast<const ListRef*>(pa);
  const auto* b = static_cast<const ListRef*>(pb);
  if (a->type != b->type) return a->type < b->type ? -1 : 1;
  if (a->items_pos != b->items_pos) return a->items_pos < b->items_pos ? -1 : 1;
  return a->value < b->value ? -1 : a->value > b->value ? 1 : 0;
}

}  // namespace

// Reads one execution plan into a Method, allocating through one budget.
class Method::Loader {
 public:
  Loader(Method& m, const Program& program, const OpRegistry& registry, const char* label, uint64_t memory_bytes)
      : m_(m),
        program_(program),
        registry_(registry),
        label_(label),
        r_(program.data(), program.flatbuffer_size()),
        budget_(memory_bytes) {}
  ~Loader() {
    free(lists_);
    free(list_flags_);
  }
  Loader(const Loader&) = delete;
  Loader& operator=(const Loader&) = delete;

  Error load(const char* method_name) {
    Error err;
    method_name_ = method_name;
    if (!(err = find_plan(method_name)).ok() || !(err = load_memory_plan()).ok() || !(err = load_values()).ok() ||
        !(err = load_io()).ok() || !(err = load_operators()).ok() || !(err = load_delegates()).ok() ||
        !(err = load_instructions()).ok() ||
        !(err = resolve_views()).ok() || !(err = check_outputs()).ok() || !(err = load_dynamic_lists()).ok()) {
      return err;
    }
    mark_calls();
    m_.memory_used_ = budget_.used();
    // Every tensor a kernel touches must have memory by now.
    for (size_t k = 0; k < m_.num_values_; ++k) {
      const Value& v = m_.values_[k];
      if (v.is_tensor() && v.as_tensor->data == nullptr && v.as_tensor->nbytes() != 0) {
        return invalid("tensor value %u has no memory (not planned, not constant, not an input)",
                       static_cast<unsigned>(k));
      }
    }
    return Error();
  }

 private:
  Error find_plan(const char* method_name) {
    const fb::Vector plans = r_.vector(r_.root(), schema::program::kExecutionPlan, 4);
    for (uint32_t i = 0; i < plans.length && !r_.failed(); ++i) {
      const fb::Table candidate = r_.table_element(plans, i);
      const fb::String name = r_.string(candidate, schema::plan::kName);
      if (name.length == strlen(method_name) && memcmp(name.data, method_name, name.length) == 0) plan_ = candidate;
    }
    if (r_.failed()) return invalid("execution plan table is out of bounds", 0);
    if (!plan_.present) return Error::make(ErrorCode::kInvalidArgument, "program has no method '%s'", method_name);
    return Error();
  }

  // Memory-planned buffers. Entry 0 is reserved by the format.
  Error load_memory_plan() {
    buffer_sizes_ = r_.vector(plan_, schema::plan::kNonConstBufferSizes, 8);
    m_.num_planned_ = buffer_sizes_.length;
    Error err = budget_.alloc(&m_.planned_, m_.num_planned_, "the memory plan");
    if (!err.ok()) return err;
    for (uint32_t i = 1; i < buffer_sizes_.length; ++i) {
      const int64_t size = r_.element<int64_t>(buffer_sizes_, i);
      if (size < 0) return invalid("planned buffer %u has a negative size", i);
      char what[48];
      snprintf(what, sizeof what, "planned buffer %u", static_cast<unsigned>(i));
      if (!(err = budget_.alloc(&m_.planned_[i], static_cast<uint64_t>(size), what)).ok()) return err;
    }
    return r_.failed() ? invalid("memory plan is out of bounds", 0) : Error();
  }

  uint64_t planned_size(uint32_t id) { return static_cast<uint64_t>(r_.element<int64_t>(buffer_sizes_, id)); }

  Error load_values() {
    values_ = r_.vector(plan_, schema::plan::kValues, 4);
    m_.num_values_ = values_.length;
    // Pass 1: count tensors and lists.
    size_t num_tensors = 0;
    for (uint32_t i = 0; i < values_.length && !r_.failed(); ++i) {
      const uint8_t type = r_.scalar<uint8_t>(r_.table_element(values_, i), schema::evalue::kValType, 0);
      num_tensors += type == schema::kTensor;
      num_lists_ += is_list(type);
    }
    if (r_.failed()) return invalid("values table is out of bounds (at byte %u)", static_cast<unsigned>(r_.failed_at()));
    Error err;
    if (!(err = budget_.alloc(&m_.values_, m_.num_values_, "the values table")).ok() ||
        !(err = budget_.alloc(&m_.tensors_, num_tensors, "the tensor table")).ok() ||
        !(err = budget_.alloc(&lists_, num_lists_, "the list index")).ok() ||
        !(err = budget_.alloc(&list_flags_, m_.num_values_, "the list index")).ok()) {
      return err;
    }

    // Pass 2: scalars and tensors. Lists refer to other values, so they come after.
    size_t tensor_count = 0;
    size_t list_count = 0;
    for (uint32_t i = 0; i < values_.length; ++i) {
      const fb::Table ev = r_.table_element(values_, i);
      const uint8_t type = r_.scalar<uint8_t>(ev, schema::evalue::kValType, 0);
      const fb::Table val = r_.table(ev, schema::evalue::kVal);
      Value& v = m_.values_[i];
      switch (type) {
        case schema::kNone:
        case schema::kNull:
          v = Value::none();
          break;
        case schema::kInt:
          v = Value::from_int(r_.scalar<int64_t>(val, 0, 0));
          break;
        case schema::kBool:
          v = Value::from_bool(r_.scalar<uint8_t>(val, 0, 0) != 0);
          break;
        case schema::kDouble:
          v = Value::from_double(r_.scalar<double>(val, 0, 0.0));
          break;
        case schema::kString: {
          const fb::String s = r_.string(val, 0);
          v.tag = Tag::kString;
          v.as_string = Span<const char>(s.data, s.length);
          break;
        }
        case schema::kTensor: {
          Tensor& t = m_.tensors_[tensor_count++];
          if (!(err = load_tensor(i, val, t)).ok()) return err;
          v = Value::from_tensor(&t);
          break;
        }
        default: {
          if (!is_list(type)) return invalid("value %u has unknown type %u", i, type);
          const fb::Vector items = r_.vector(val, 0, file_item_size(type));
          lists_[list_count++] = ListRef{items.pos, items.length, type, i};
          break;
        }
      }
      if (r_.failed()) return invalid("value %u is out of bounds", i);
    }
    return load_lists();
  }

  Error load_tensor(uint32_t i, const fb::Table& val, Tensor& t) {
    const int8_t dtype = r_.scalar<int8_t>(val, schema::tensor::kScalarType, 0);
    const fb::Vector sizes = r_.vector(val, schema::tensor::kSizes, 4);
    const fb::Vector dim_order = r_.vector(val, schema::tensor::kDimOrder, 1);
    if (r_.failed()) return invalid("tensor value %u is out of bounds", i);
    if (!supported_dtype(dtype)) {
      return Error::make(ErrorCode::kNotSupported, "tensor value %u has dtype %d, which this runtime does not support",
                         static_cast<unsigned>(i), dtype);
    }
    if (sizes.length > static_cast<uint32_t>(kMaxDims)) return invalid("tensor value %u has %u dims", i, sizes.length);
    t.dtype = static_cast<ScalarType>(dtype);
    t.dim = static_cast<int32_t>(sizes.length);
    for (uint32_t d = 0; d < sizes.length; ++d) {
      t.sizes[d] = r_.element<int32_t>(sizes, d);
      if (t.sizes[d] < 0) return invalid("tensor value %u has a negative size in dim %u", i, d);
    }
    if (shape_numel(t.sizes, t.dim) == kSaturated) return invalid("tensor value %u is impossibly large", i);
    // A dynamic tensor's sizes in the program are its upper bound: planned
    // memory (or the input buffer) holds that many elements.
    const int8_t dynamism = r_.scalar<int8_t>(val, schema::tensor::kShapeDynamism, 0);
    if (dynamism < 0 || dynamism > 2) return invalid("tensor value %u has unknown shape dynamism %u", i, dynamism);
    t.dynamism = static_cast<ShapeDynamism>(dynamism);
    t.capacity = t.numel();
    // No dim order means the default; any other must be a permutation of the
    // dims. Which kernels take which orders is checked per call, below.
    if (dim_order.length != 0) {
      if (dim_order.length != sizes.length) return invalid("tensor value %u has a dim order of the wrong length", i);
      bool contiguous = true;
      for (uint32_t d = 0; d < dim_order.length; ++d) {
        t.dim_order[d] = r_.element<uint8_t>(dim_order, d);
        contiguous = contiguous && t.dim_order[d] == d;
      }
      if (!is_dim_order(t.dim_order, t.dim) || (!SB_DIM_ORDERS && !contiguous)) {
        char order[64];
        format_dim_order(order, sizeof order, t);
        if (!SB_DIM_ORDERS && is_dim_order(t.dim_order, t.dim)) {
          return Error::make(ErrorCode::kNotSupported, "tensor value %u has dim order %s: %s", static_cast<unsigned>(i),
                             order, kNoDimOrders);
        }
        return Error::invalid_program(
            "tensor value %u has dim order %s, not a permutation of its %u dims", static_cast<unsigned>(i),
            order, static_cast<unsigned>(dim_order.length));
      }
    }
    if (r_.scalar<int32_t>(val, schema::tensor::kStorageOffset, 0) != 0) {
      return Error::make(ErrorCode::kNotSupported, "tensor value %u has a storage offset", static_cast<unsigned>(i));
    }
    const fb::Table extra = r_.table(val, schema::tensor::kExtraTensorInfo);
    const bool external =
        r_.scalar<int8_t>(extra, schema::extra_tensor_info::kLocation, 0) == schema::extra_tensor_info::kExternal;
    // shape_numel bounds the shape, so this fits 64 bits; a 32-bit size_t (Cortex-M) can
    // still be too small for it, and Tensor::nbytes() would wrap.
    const uint64_t nbytes = sat_mul(static_cast<uint64_t>(t.numel()), element_size(t.dtype));
    if (nbytes > SIZE_MAX) return invalid("tensor value %u is larger than this machine's address space", i);
    const uint32_t buffer_idx = r_.scalar<uint32_t>(val, schema::tensor::kDataBufferIdx, 0);
    const fb::Table alloc = r_.table(val, schema::tensor::kAllocationInfo);
    // External data: a constant points into its data file; mutable state (planned) starts as a copy of it.
    const uint8_t* initial = nullptr;
    if (external) {
      if (!SB_EXTERNAL_DATA) {
        return Error::make(ErrorCode::kNotSupported, "tensor value %u keeps its data in a .ptd file: %s",
                           static_cast<unsigned>(i), kNoExternalData);
      }
      Result<const uint8_t*> data = external_tensor(i, extra, t, static_cast<size_t>(nbytes));
      if (!data.ok()) return data.error;
      initial = data.value;
    }
    if (alloc.present) {
      const uint32_t id = r_.scalar<uint32_t>(alloc, schema::allocation::kMemoryId, 0);
      const uint64_t offset = r_.scalar<uint32_t>(alloc, schema::allocation::kOffsetLow, 0) |
                              (uint64_t{r_.scalar<uint32_t>(alloc, schema::allocation::kOffsetHigh, 0)} << 32);
      if (id == 0 || id >= m_.num_planned_) return invalid("tensor value %u names memory %u, which is not planned", i, id);
      if (sat_add(offset, nbytes) > planned_size(id)) return invalid("tensor value %u overruns planned buffer %u", i, id);
      if (buffer_idx != 0 && !external) {
        // Mutable state with an initial value (ExecuTorch's mutable_data_segments): copied in once, here;
        // executes then carry it over, as ExecuTorch's do.
        if (!SB_MUTABLE_DATA) {
          return Error::make(ErrorCode::kNotSupported, "tensor value %u starts from stored mutable data: %s",
                             static_cast<unsigned>(i), kNoMutableData);
        }
        const uint64_t list = r_.scalar<uint64_t>(extra, schema::extra_tensor_info::kMutableDataSegmentsIdx, 0);
        Result<const uint8_t*> data = program_.mutable_data(list, buffer_idx, static_cast<size_t>(nbytes));
        if (!data.ok()) return data.error;
        initial = data.value;
      }
      t.data = m_.planned_[id] + offset;
      if (initial != nullptr) memcpy(t.data, initial, static_cast<size_t>(nbytes));
    } else if (external) {
      t.data = const_cast<uint8_t*>(initial);  // constants are never kernel outputs (check_outputs)
    } else if (buffer_idx != 0) {
      Result<const uint8_t*> data = program_.constant_data(buffer_idx, nbytes);
      if (!data.ok()) return data.error;
      t.data = const_cast<uint8_t*>(data.value);  // constants are never kernel outputs
    }
    // Kernels read elements as their type: the data must be aligned for it.
    if (t.data != nullptr && reinterpret_cast<uintptr_t>(t.data) % element_size(t.dtype) != 0) {
      return invalid("tensor value %u has misaligned data", i);
    }
    return r_.failed() ? invalid("tensor value %u is out of bounds", i) : Error();
  }

  static bool same_sizes(const DataEntry& entry, const Tensor& t) {
    if (entry.dim != t.dim) return false;
    for (int32_t d = 0; d < t.dim; ++d) {
      if (entry.sizes[d] != t.sizes[d]) return false;
    }
    return true;
  }

  // The data of external tensor value `i`, found by its fully qualified name in the program's data files
  // and checked against the tensor: its layout when the file stored one (as ExecuTorch checks it), its size.
  Result<const uint8_t*> external_tensor(uint32_t i, const fb::Table& extra, const Tensor& t, size_t nbytes) {
    const fb::String name = r_.string(extra, schema::extra_tensor_info::kFullyQualifiedName);
    if (r_.failed() || name.length == 0) return invalid("tensor value %u keeps its data outside the .pte file but has no name", i);
    const Span<const char> key(name.data, name.length);
    char user[48];
    snprintf(user, sizeof user, "tensor value %u", static_cast<unsigned>(i));
    Result<DataEntry> found = program_.external_data(key, user);
    if (!found.ok()) return found.error;
    const DataEntry& entry = found.value;
    bool matches = entry.bytes.size() >= nbytes;
    if (entry.has_layout) {
      matches = matches && entry.dtype == t.dtype && entry.dim == t.dim;
      for (int32_t d = 0; matches && d < t.dim; ++d) {
        matches = entry.sizes[d] == t.sizes[d] && entry.dim_order[d] == t.dim_order[d];
      }
    }
    if (!matches) {
      char shown[80];
      char theirs[80];
      char ours[80];
      format_key(shown, sizeof shown, key);
      format_shape(ours, sizeof ours, t.sizes, t.dim);
      if (entry.has_layout && entry.dtype == t.dtype && same_sizes(entry, t)) {
        return Error::make(ErrorCode::kInvalidProgram, "tensor value %u: data '%s' has another dim order than the program's",
                           static_cast<unsigned>(i), shown);
      }
      if (entry.has_layout) {
        format_shape(theirs, sizeof theirs, entry.sizes, entry.dim);
      } else {
        snprintf(theirs, sizeof theirs, "%zu bytes", entry.bytes.size());
      }
      return Error::make(ErrorCode::kInvalidProgram, "tensor value %u: data '%s' is %s %s, the program expects %s %s",
                         static_cast<unsigned>(i), shown, entry.has_layout ? scalar_type_name(entry.dtype) : "of",
                         theirs, scalar_type_name(t.dtype), ours);
    }
    return entry.bytes.data();
  }

  // Pass 3: lists, each distinct items vector once.
  Error load_lists() {
    qsort(lists_, num_lists_, sizeof(ListRef), compare_list_refs);
    uint64_t storage_bytes = 0;
    for (size_t k = 0; k < num_lists_; ++k) {
      if (k == 0 || !same_items(lists_[k - 1], lists_[k])) {
        storage_bytes = sat_add(storage_bytes, list_bytes(lists_[k].type, lists_[k].length));
      }
    }
    Error err = budget_.alloc(&m_.list_storage_, storage_bytes, 1, "list storage");
    if (!err.ok()) return err;
    uint8_t* storage = static_cast<uint8_t*>(m_.list_storage_);
    for (size_t k = 0; k < num_lists_;) {
      const ListRef& list = lists_[k];
      Value& first = m_.values_[list.value];
      if (!(err = load_list(list, storage, &first)).ok()) return err;
      storage += list_bytes(list.type, list.length);
      uint8_t flags = 0;
      if (first.tag == Tag::kTensorList || first.tag == Tag::kOptionalTensorList) {
        for (const Tensor* t : first.as_tensor_list) {
          if (is_constant(t, program_)) flags |= kHasConstant;
          if (t != nullptr && t->is_dynamic()) flags |= kHasDynamic;
        }
      }
      for (; k < num_lists_ && same_items(lists_[k], list); ++k) {
        m_.values_[lists_[k].value] = first;
        list_flags_[lists_[k].value] = flags;
      }
    }
    return Error();
  }

  Error load_list(const ListRef& list, uint8_t* storage, Value* v) {
    const fb::Vector items{list.items_pos, list.length};
    const uint32_t i = list.value;
    switch (list.type) {
      case schema::kIntList: {
        // Items are indices of Int values (so symbolic ints can be shared).
        int64_t* out = reinterpret_cast<int64_t*>(storage);
        for (uint32_t k = 0; k < items.length; ++k) {
          const int64_t idx = r_.element<int64_t>(items, k);
          if (idx < 0 || static_cast<uint64_t>(idx) >= m_.num_values_ || m_.values_[idx].tag != Tag::kInt) {
            return invalid("int list value %u refers to a value that is not an int (item %u)", i, k);
          }
          out[k] = m_.values_[idx].as_int;
        }
        *v = Value::from_int_list(Span<const int64_t>(out, items.length));
        break;
      }
      case schema::kDoubleList: {
        double* out = reinterpret_cast<double*>(storage);
        for (uint32_t k = 0; k < items.length; ++k) out[k] = r_.element<double>(items, k);
        *v = Value::from_double_list(Span<const double>(out, items.length));
        break;
      }
      case schema::kBoolList: {
        bool* out = reinterpret_cast<bool*>(storage);
        for (uint32_t k = 0; k < items.length; ++k) out[k] = r_.element<uint8_t>(items, k) != 0;
        v->tag = Tag::kBoolList;
        v->as_bool_list = Span<const bool>(out, items.length);
        break;
      }
      default: {
        const bool optional = list.type == schema::kOptionalTensorList;
        Tensor** out = reinterpret_cast<Tensor**>(storage);
        for (uint32_t k = 0; k < items.length; ++k) {
          const int32_t idx = r_.element<int32_t>(items, k);
          const bool in_range = idx >= 0 && static_cast<uint32_t>(idx) < m_.num_values_;
          if (in_range && m_.values_[idx].tag == Tag::kTensor) {
            out[k] = m_.values_[idx].as_tensor;
          } else if (optional && (idx == -1 || (in_range && m_.values_[idx].tag == Tag::kNone))) {
            out[k] = nullptr;
          } else {
            return invalid("tensor list value %u refers to a value that is not a tensor (item %u)", i, k);
          }
        }
        v->tag = optional ? Tag::kOptionalTensorList : Tag::kTensorList;
        v->as_tensor_list = Span<Tensor* const>(out, items.length);
        break;
      }
    }
    return r_.failed() ? invalid("list value %u is out of bounds", i) : Error();
  }

  Error read_indices(int field, uint32_t** out, size_t* count, const char* what) {
    const fb::Vector v = r_.vector(plan_, field, 4);
    *count = v.length;
    Error err = budget_.alloc(out, v.length, what);
    if (!err.ok()) return err;
    for (uint32_t k = 0; k < v.length; ++k) {
      const int32_t idx = r_.element<int32_t>(v, k);
      if (idx < 0 || static_cast<uint32_t>(idx) >= m_.num_values_) {
        return Error::invalid_program("%s %u refers to value %d of %zu", what, static_cast<unsigned>(k),
                                      static_cast<int>(idx), m_.num_values_);
      }
      (*out)[k] = static_cast<uint32_t>(idx);
    }
    return r_.failed() ? invalid("input/output table is out of bounds", 0) : Error();
  }

  Error load_io() {
    Error err;
    if (!(err = read_indices(schema::plan::kInputs, &m_.input_index_, &m_.num_inputs_, "input")).ok() ||
        !(err = read_indices(schema::plan::kOutputs, &m_.output_index_, &m_.num_outputs_, "output")).ok() ||
        !(err = budget_.alloc(&m_.input_buffers_, m_.num_inputs_, "the input table")).ok()) {
      return err;
    }
    for (size_t k = 0; k < m_.num_inputs_; ++k) {
      Value& in = m_.values_[m_.input_index_[k]];
      if (in.is_tensor() && in.as_tensor->data == nullptr) {
        // Not memory-planned: give the input its own buffer so set_input copies.
        char what[48];
        snprintf(what, sizeof what, "input %zu", k);
        uint8_t*& buffer = m_.input_buffers_[m_.num_input_buffers_++];
        if (!(err = budget_.alloc(&buffer, in.as_tensor->nbytes(), what)).ok()) return err;
        in.as_tensor->data = buffer;
      }
    }
    return Error();
  }

  // Operators: resolve each, with everything its kernel may call.
  Error load_operators() {
    const fb::Vector ops = r_.vector(plan_, schema::plan::kOperators, 4);
    m_.num_operators_ = ops.length;
    Error err = budget_.alloc(&m_.operators_, ops.length, "the operator table");
    if (!err.ok()) return err;
    MissingOps missing;
    for (uint32_t k = 0; k < ops.length; ++k) {
      const fb::Table op = r_.table_element(ops, k);
      const fb::String name = r_.string(op, schema::operator_::kName);
      const fb::String overload = r_.string(op, schema::operator_::kOverload);
      if (r_.failed()) return invalid("operator %u is out of bounds", k);
      // Registered kernels are named as "name.overload" ("aten::add.out"), or "name" without one.
      char full[128];
      snprintf(full, sizeof full, "%.*s%s%.*s", static_cast<int>(name.length), name.data, overload.length ? "." : "",
               static_cast<int>(overload.length), overload.data);
      printable(full);
      if (const Backend* owner = node_kind_owner(full)) {
        return Error::invalid_program(
            "operator %u (%s) is a node kind of %s, which only its delegates run",
            static_cast<unsigned>(k), full, owner->id);
      }
      const KernelDef* def = registry_.find(full);
      if (def == nullptr) {
        missing.add(full, nullptr);
        continue;
      }
      if (!(err = registry_.collect_missing_calls(*def, missing)).ok()) return err;
      m_.operators_[k] = def;
    }
    if (!(err = find_backends(missing)).ok()) return err;
    return missing.error(label_);
  }

  // The registered backend whose node kinds live in op namespace `name`'s ("xnnpack::conv2d.f32"), if any.
  const Backend* node_kind_owner(const char* name) const {
    const size_t length = strlen(name);
    for (size_t b = 0; b < registry_.num_backends(); ++b) {
      const char* ns = registry_.backend(b).node_kinds;
      const size_t n = ns == nullptr ? 0 : strlen(ns);
      if (n > 0 && length > n + 1 && memcmp(name, ns, n) == 0 && name[n] == ':' && name[n + 1] == ':') {
        return &registry_.backend(b);
      }
    }
    return nullptr;
  }

  // The backend of each delegate: one the build does not register (or that
  // is not available here) is listed with the missing ops. A runtime built
  // without delegates (SB_DELEGATES=0) has no backend.
  Error find_backends(MissingOps& missing) {
    delegates_ = r_.vector(plan_, schema::plan::kDelegates, 4);
    for (uint32_t k = 0; k < delegates_.length; ++k) {
      const fb::String id = r_.string(r_.table_element(delegates_, k), schema::delegate::kId);
      if (r_.failed()) return invalid("delegate %u is out of bounds", k);
#if SB_DELEGATES
      const Backend* backend = registry_.find_backend(id.data, id.length);
      if (backend == nullptr || !backend->backend->is_available()) {
#else
      {
#endif
        char name[64];
        snprintf(name, sizeof name, "%.*s", static_cast<int>(id.length), id.length ? id.data : "");
        missing.add_backend(printable(name));
      }
    }
    return Error();
  }

  // A name from the program, fit for a one-line message: controls and
  // non-ASCII bytes become '?'.
  static const char* printable(char* name) {
    for (char* p = name; *p; ++p) {
      if (static_cast<unsigned char>(*p) < 32 || static_cast<unsigned char>(*p) >= 127) *p = '?';
    }
    return name;
  }

  // Every delegate of the plan is initialised at load, as ExecuTorch does
  // (find_backends made sure each has its backend).
  Error load_delegates() {
    if (delegates_.length == 0) return Error();
#if !SB_DELEGATES
    return invalid("delegates in a runtime without them", 0);  // find_backends refused them
  }
#else
    const internal::DelegateInitFn init = registry_.delegate_init();
    if (init == nullptr) return invalid("delegates without a backend registry", 0);  // find_backends refused them
    Error err = budget_.alloc(&m_.delegates_, delegates_.length, "the delegate table");
    if (!err.ok()) return err;
    for (uint32_t k = 0; k < delegates_.length; ++k) {
      const fb::Table delegate = r_.table_element(delegates_, k);
      const fb::String id = r_.string(delegate, schema::delegate::kId);
      if (r_.failed()) return invalid("delegate %u is out of bounds", k);
      const Backend* backend = registry_.find_backend(id.data, id.length);
      BackendInitContext context(&allocate_for_backend, this, registry_, &program_, method_name_, backend->id, k);
      void* handle = nullptr;
      if (!(err = init(program_, r_, delegate, *backend, context, &handle)).ok()) return err;
      m_.delegates_[k] = Delegate{backend, handle};
      m_.num_delegates_ = k + 1;
    }
    return Error();
  }

  // BackendInitContext::allocate: zeroed memory in the method's budget, on a
  // list the method frees. Each block starts with the link to the next; the
  // memory handed out follows it, aligned to 16 whatever malloc aligns to.
  static Error allocate_for_backend(void* owner, uint64_t bytes, const char* what, void** out) {
    Loader& self = *static_cast<Loader*>(owner);
    void* block = nullptr;
    Error err = self.budget_.alloc(&block, sat_add(bytes, kBlockOverhead), 1, what);
    if (!err.ok()) return err;
    *static_cast<void**>(block) = self.m_.delegate_memory_;
    self.m_.delegate_memory_ = block;
    const uintptr_t after_link = reinterpret_cast<uintptr_t>(block) + sizeof(void*);
    *out = reinterpret_cast<void*>((after_link + kAlignment - 1) & ~uintptr_t{kAlignment - 1});
    return Error();
  }
  static constexpr uintptr_t kAlignment = 16;
  static constexpr uint64_t kBlockOverhead = sizeof(void*) + kAlignment - 1;
#endif  // SB_DELEGATES

  // A call's argument list (value indices, each in range) as the instruction's args, taken from
  // *next_arg on: kernel and delegate calls alike.
  Error read_args(uint32_t k, const fb::Vector& list, Instruction& out, Value*** next_arg) {
    out.args = *next_arg;
    out.num_args = list.length;
    for (uint32_t a = 0; a < list.length; ++a) {
      const int32_t idx = r_.element<int32_t>(list, a);
      if (idx < 0 || static_cast<size_t>(idx) >= m_.num_values_) {
        return invalid("instruction %u argument %u refers to a value out of range", k, a);
      }
      *(*next_arg)++ = &m_.values_[idx];
    }
    return Error();
  }

  // The operator a KernelCall instruction calls, checked.
  Error kernel_of(uint32_t k, const fb::Table& args, const KernelDef** def) {
    const int32_t op_index = r_.scalar<int32_t>(args, schema::kernel_call::kOpIndex, 0);
    if (op_index < 0 || static_cast<size_t>(op_index) >= m_.num_operators_) {
      return invalid("instruction %u calls operator %d, which does not exist", k, static_cast<unsigned>(op_index));
    }
    *def = m_.operators_[op_index];
    return Error();
  }

  // Instructions (ExecuTorch programs run chain 0).
  Error load_instructions() {
    const fb::Vector chains = r_.vector(plan_, schema::plan::kChains, 4);
    if (chains.length == 0) return invalid("method has no chain", 0);
    const fb::Table chain = r_.table_element(chains, 0);
    const fb::Vector instructions = r_.vector(chain, schema::chain::kInstructions, 4);
    if (r_.failed()) return invalid("instruction table is out of bounds", 0);
    m_.num_instructions_ = instructions.length;
    Error err = budget_.alloc(&m_.instructions_, m_.num_instructions_, "the instruction table");
    if (!err.ok()) return err;

    // Argument counts are checked against each kernel's arity before any
    // argument is stored, so the argument table is bounded by the instructions.
    uint64_t total_args = 0;
    for (uint32_t k = 0; k < instructions.length; ++k) {
      const fb::Table ins = r_.table_element(instructions, k);
      const uint8_t type = r_.scalar<uint8_t>(ins, schema::instruction::kArgsType, 0);
      if (SB_DELEGATES && type == schema::kDelegateCall) {
        // Checked against the delegate table in the second pass.
        const fb::Table args = r_.table(ins, schema::instruction::kArgs);
        total_args = sat_add(total_args, r_.vector(args, schema::delegate_call::kArgs, 4).length);
        continue;
      }
      if (type != schema::kKernelCall) continue;
      const fb::Table args = r_.table(ins, schema::instruction::kArgs);
      const KernelDef* def = nullptr;
      if (!(err = kernel_of(k, args, &def)).ok()) return err;
      const uint32_t passed = r_.vector(args, schema::kernel_call::kArgs, 4).length;
      if (r_.failed()) break;
      const size_t takes = arity(*def) + (returned_kind(*def) != '\0' ? 1 : 0);
      if (passed != takes) {
        return Error::invalid_program(
            "instruction %u: %s takes %zu arguments, the call passes %u", static_cast<unsigned>(k), def->op,
            takes, static_cast<unsigned>(passed));
      }
      total_args = sat_add(total_args, passed);
    }
    if (r_.failed()) return invalid("instruction table is out of bounds", 0);
    if (!(err = budget_.alloc(&m_.arg_storage_, total_args, "the argument table")).ok() ||
        !(err = budget_.alloc(&m_.value_flags_, m_.num_values_, "the value flags")).ok()) {
      return err;
    }
    for (size_t k = 0; k < m_.num_inputs_; ++k) m_.value_flags_[m_.input_index_[k]] |= kWritten;

    Value** next_arg = m_.arg_storage_;
    for (uint32_t k = 0; k < instructions.length; ++k) {
      const fb::Table ins = r_.table_element(instructions, k);
      const uint8_t type = r_.scalar<uint8_t>(ins, schema::instruction::kArgsType, 0);
      const fb::Table args = r_.table(ins, schema::instruction::kArgs);
      Instruction& out = m_.instructions_[k];
      out.type = type;
      if (!SB_CONTROL_FLOW && (type == schema::kMoveCall || type == schema::kJumpFalseCall)) {
        return Error::make(ErrorCode::kNotSupported, "instruction %u %s: %s", static_cast<unsigned>(k),
                           type == schema::kMoveCall ? "moves a value" : "jumps", kNoControlFlow);
      }
      switch (type) {
        case schema::kKernelCall: {
          if (!(err = kernel_of(k, args, &out.kernel)).ok()) return err;
          if (!(err = read_args(k, r_.vector(args, schema::kernel_call::kArgs, 4), out, &next_arg)).ok()) return err;
          if (!(err = check_signature(*out.kernel, Args(out.args, out.num_args), CallSite::kProgram)).ok()) {
            return Error::invalid_program("instruction %u: %s", static_cast<unsigned>(k), err.message());
          }
          // Dim orders are static: each call's are checked once, here. A runtime built without
          // dim orders has only contiguous tensors (load_tensor), which every kernel takes.
          if (SB_DIM_ORDERS && !(err = check_layout(*out.kernel, Args(out.args, out.num_args), m_.values_)).ok()) return err;
          if (returned_kind(*out.kernel) == 's') {
            m_.value_flags_[out.args[out.num_args - 1] - m_.values_] |= kRetaggable | kWritten;
          }
          break;
        }
        case schema::kDelegateCall: {
          // The delegate was initialised with the plan (load_delegates).
          const int32_t index = r_.scalar<int32_t>(args, schema::delegate_call::kDelegateIndex, 0);
          if (index < 0 || static_cast<uint32_t>(index) >= m_.num_delegates_) {
            return Error::invalid_program(
                "instruction %u calls delegate %d, which does not exist (%zu delegates)",
                static_cast<unsigned>(k), static_cast<int>(index), m_.num_delegates_);
          }
          out.a = static_cast<uint32_t>(index);
#if SB_DELEGATES
          if (!(err = read_args(k, r_.vector(args, schema::delegate_call::kArgs, 4), out, &next_arg)).ok()) return err;
#endif
          break;
        }
        case schema::kMoveCall: {
          out.a = static_cast<uint32_t>(r_.scalar<int32_t>(args, schema::move_call::kFrom, 0));
          out.b = static_cast<uint32_t>(r_.scalar<int32_t>(args, schema::move_call::kTo, 0));
          if (out.a >= m_.num_values_ || out.b >= m_.num_values_ || m_.values_[out.a].tag != m_.values_[out.b].tag) {
            return invalid("move instruction %u has bad value indices", k);
          }
          // A scalar moved may come from a prim op's result of another type.
          m_.value_flags_[out.b] |= kWritten | (is_scalar_tag(m_.values_[out.b].tag) ? kRetaggable : 0);
          break;
        }
        case schema::kJumpFalseCall: {
          out.a = static_cast<uint32_t>(r_.scalar<int32_t>(args, schema::jump_false_call::kCondition, 0));
          out.b = static_cast<uint32_t>(r_.scalar<int32_t>(args, schema::jump_false_call::kDestination, 0));
          if (out.a >= m_.num_values_ || out.b > m_.num_instructions_) {
            return invalid("jump instruction %u is out of range", k);
          }
          break;
        }
        case schema::kFreeCall:
          break;
        default:
          return invalid("instruction %u has unknown type %u", k, type);
      }
      if (r_.failed()) return invalid("instruction %u is out of bounds", k);
    }
    return Error();
  }

  // et_view makes its out a view of self's memory when it runs; before that
  // the out already points there (the planner often gives it no memory of its
  // own), so every tensor has memory behind it from load on, and a view of a
  // constant counts as constant. Views of views resolve over a few passes.
  // et_view is found in the registry: a build that did not select it has no
  // call to it (load_operators refused the program).
  Error resolve_views() {
    const KernelDef* view = registry_.find("executorch_prim::et_view.default");
    for (int pass = 0; pass < 16; ++pass) {
      bool changed = false;
      for (size_t k = 0; k < m_.num_instructions_; ++k) {
        const Instruction& ins = m_.instructions_[k];
        if (ins.type != schema::kKernelCall || ins.kernel != view) continue;
        const Tensor& self = *ins.args[0]->as_tensor;
        Tensor& out = *ins.args[2]->as_tensor;
        if (&self == &out || self.data == nullptr || out.data == self.data || out.dtype != self.dtype) continue;
        if (out.data != nullptr && !is_constant(&self, program_)) continue;  // planned; repointed when it runs
        const int64_t held = self.capacity > self.numel() ? self.capacity : self.numel();
        if (out.numel() > held) return invalid("view value %u is larger than the tensor it views", static_cast<unsigned>(ins.args[2] - m_.values_));
        out.data = self.data;
        out.capacity = held;
        changed = true;
      }
      if (!changed) break;
    }
    return Error();
  }

  // No instruction writes into constant data (checked once views are known).
  Error check_outputs() {
    for (size_t k = 0; k < m_.num_instructions_; ++k) {
      Instruction& ins = m_.instructions_[k];
      if (SB_DELEGATES && ins.type == schema::kDelegateCall) {
        // Which of a delegate's values are outputs only its backend knows: it
        // is told which are constant (BackendExecutionContext::constant_args)
        // and refuses to write those. Exporters pass constants as inputs.
        ins.b = 0;
        for (uint32_t a = 0; a < ins.num_args; ++a) {
          if (!writes_constant(*ins.args[a])) continue;
          if (a >= 32) return invalid("instruction %u passes constant data to a delegate as argument %u (past 32)", static_cast<unsigned>(k), a);
          ins.b |= uint32_t{1} << a;
        }
        continue;
      }
      if (ins.type != schema::kKernelCall) continue;
      for (uint32_t a = 0; a < ins.num_args; ++a) {
        if (is_output(*ins.kernel, a) && writes_constant(*ins.args[a])) {
          return invalid("instruction %u would write into constant data (argument %u)", static_cast<unsigned>(k), a);
        }
      }
    }
    return Error();
  }

  // Int lists with an item some instruction (or set_input) writes.
  Error load_dynamic_lists() {
    if (!SB_DYNAMIC_LISTS) {
      for (size_t k = 0; k < num_lists_; ++k) {
        if (lists_[k].type == schema::kIntList && has_written_item(lists_[k])) {
          return Error::make(ErrorCode::kNotSupported, "int list value %u holds sizes computed while the method runs: %s",
                             static_cast<unsigned>(lists_[k].value), kNoDynamicLists);
        }
      }
      return Error();
    }
    uint64_t num_items = 0;
    size_t count = 0;
    for (size_t k = 0; k < num_lists_; ++k) {
      if (lists_[k].type != schema::kIntList || (k > 0 && same_items(lists_[k - 1], lists_[k]))) continue;
      if (has_written_item(lists_[k])) {
        ++count;
        num_items = sat_add(num_items, lists_[k].length);
      }
    }
    if (count == 0) return Error();
    Error err;
    if (!(err = budget_.alloc(&m_.dynamic_lists_, count, "the dynamic list table")).ok() ||
        !(err = budget_.alloc(&m_.dynamic_items_, num_items, "the dynamic list table")).ok() ||
        !(err = budget_.alloc(&m_.dynamic_list_of_, m_.num_values_, "the dynamic list table")).ok()) {
      return err;
    }
    for (size_t v = 0; v < m_.num_values_; ++v) m_.dynamic_list_of_[v] = kNoList;
    uint32_t* items = m_.dynamic_items_;
    for (size_t k = 0; k < num_lists_;) {
      const ListRef& list = lists_[k];
      const bool dynamic = list.type == schema::kIntList && has_written_item(list);
      const uint32_t index = static_cast<uint32_t>(m_.num_dynamic_lists_);
      if (dynamic) {
        const fb::Vector vec{list.items_pos, list.length};
        for (uint32_t i = 0; i < list.length; ++i) items[i] = static_cast<uint32_t>(r_.element<int64_t>(vec, i));
        const Value& v = m_.values_[list.value];
        m_.dynamic_lists_[m_.num_dynamic_lists_++] =
            DynamicList{const_cast<int64_t*>(v.as_int_list.data()), items, list.length};
        items += list.length;
      }
      for (; k < num_lists_ && same_items(lists_[k], list); ++k) {
        if (dynamic) m_.dynamic_list_of_[lists_[k].value] = index;
      }
    }
    return r_.failed() ? invalid("list value is out of bounds", 0) : Error();
  }

  // Calls that take a dynamic list re-read it first; calls that read a
  // retaggable value have their signature checked again. Each instruction's
  // cost is counted here from the values whose bytes cannot change: a static
  // tensor keeps its shape (resize() refuses to change it) and a list its
  // length. What can change: a dynamic tensor (or a tensor list holding one),
  // and a value a move or set_input replaces (a scalar, which prim ops also
  // write, has no bytes whatever it holds).
  void mark_calls() {
    for (size_t k = 0; k < m_.num_values_; ++k) {
      const Value& v = m_.values_[k];
      if (((m_.value_flags_[k] & kWritten) && !is_scalar_tag(v.tag)) || (v.is_tensor() && v.as_tensor->is_dynamic()) ||
          (list_flags_[k] & kHasDynamic)) {
        m_.value_flags_[k] |= kVariableBytes;
      }
    }
    for (size_t k = 0; k < m_.num_instructions_; ++k) {
      Instruction& ins = m_.instructions_[k];
      ins.cost = kInstructionCost;
      if (SB_CONTROL_FLOW && ins.type == schema::kJumpFalseCall) charge(ins, m_.values_[ins.a]);
      if (SB_DELEGATES && ins.type == schema::kDelegateCall) {
        // A delegate is charged the bytes of its values, as a kernel is.
        for (uint32_t a = 0; a < ins.num_args; ++a) {
          const size_t idx = static_cast<size_t>(ins.args[a] - m_.values_);
          if (takes_dynamic_list(idx)) ins.flags |= kRefreshLists;
          charge(ins, *ins.args[a]);
        }
        continue;
      }
      if (ins.type != schema::kKernelCall) continue;
      // The signature's kinds, argument by argument (the count was checked):
      // a retaggable value needs the check again only where a kind takes
      // fewer than all three scalar tags.
      const char* kind = ins.kernel->signature;
      for (uint32_t a = 0; a < ins.num_args; ++a) {
        while (*kind == '|') ++kind;
        const bool any_scalar = *kind == 's' || *kind == 'S' || (*kind == '>' && kind[1] == 's');
        if (*kind != '\0' && *kind != '>') ++kind;
        const size_t idx = static_cast<size_t>(ins.args[a] - m_.values_);
        if ((m_.value_flags_[idx] & kRetaggable) && !any_scalar) ins.flags |= kRecheck;
        if (takes_dynamic_list(idx)) ins.flags |= kRefreshLists;
        charge(ins, *ins.args[a]);
      }
    }
  }

  // Whether value `idx` is a dynamic list (never, in a runtime built without them).
  bool takes_dynamic_list(size_t idx) const {
    return SB_DYNAMIC_LISTS && m_.dynamic_list_of_ != nullptr && m_.dynamic_list_of_[idx] != kNoList;
  }

  // Adds what `v` costs to ins.cost now, or marks it to be added when it runs.
  void charge(Instruction& ins, const Value& v) {
    if (m_.value_flags_[&v - m_.values_] & kVariableBytes) {
      ins.flags |= kVariableCost;
    } else {
      ins.cost = sat_add(ins.cost, value_bytes(v));
    }
  }

  bool has_written_item(const ListRef& list) {
    const fb::Vector vec{list.items_pos, list.length};
    for (uint32_t i = 0; i < list.length; ++i) {
      const int64_t idx = r_.element<int64_t>(vec, i);  // checked in range when the list loaded
      if (m_.value_flags_[idx] & kWritten) return true;
    }
    return false;
  }

  // Outputs must be planned memory; constants live in the caller's program bytes.
  bool writes_constant(const Value& v) const {
    if (v.is_tensor()) return is_constant(v.as_tensor, program_);
    return (list_flags_[&v - m_.values_] & kHasConstant) != 0;
  }

  Method& m_;
  const Program& program_;
  const OpRegistry& registry_;
  const char* label_;
  fb::Reader r_;
  MemoryBudget budget_;
  fb::Table plan_;
  fb::Vector buffer_sizes_;
  fb::Vector values_;
  ListRef* lists_ = nullptr;
  size_t num_lists_ = 0;
  // Per value: a tensor list with a constant member, with a dynamic one.
  static constexpr uint8_t kHasConstant = 1;
  static constexpr uint8_t kHasDynamic = 2;
  uint8_t* list_flags_ = nullptr;
  const char* method_name_ = "";
  fb::Vector delegates_;
};

Method::~Method() { release(); }

void Method::release() {
#if SB_DELEGATES
  // Delegates first: a backend's destroy() may still read its init() memory.
  for (size_t i = 0; delegates_ != nullptr && i < num_delegates_; ++i) {
    if (delegates_[i].backend != nullptr) delegates_[i].backend->backend->destroy(delegates_[i].handle);
  }
  while (delegate_memory_ != nullptr) {
    void* next = *static_cast<void**>(delegate_memory_);
    free(delegate_memory_);
    delegate_memory_ = next;
  }
  free(delegates_);
  delegates_ = nullptr;
  num_delegates_ = 0;
#endif
  for (size_t i = 0; planned_ != nullptr && i < num_planned_; ++i) free(planned_[i]);
  for (size_t i = 0; input_buffers_ != nullptr && i < num_input_buffers_; ++i) free(input_buffers_[i]);
  free(planned_);
  free(input_buffers_);
  free(values_);
  free(tensors_);
  free(list_storage_);
  free(operators_);
  free(instructions_);
  free(arg_storage_);
  free(input_index_);
  free(output_index_);
  free(value_flags_);
  value_flags_ = nullptr;
  if (SB_DYNAMIC_LISTS) {  // never allocated otherwise
    free(dynamic_list_of_);
    free(dynamic_lists_);
    free(dynamic_items_);
    dynamic_list_of_ = nullptr;
    dynamic_lists_ = nullptr;
    num_dynamic_lists_ = 0;
    dynamic_items_ = nullptr;
  }
  planned_ = nullptr;
  num_planned_ = 0;
  input_buffers_ = nullptr;
  num_input_buffers_ = 0;
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
  memory_used_ = 0;
}

Error Method::load(const Program& program, const char* method_name, const OpRegistry& registry, const char* label,
                   const RuntimeLimits& limits) {
  release();
  registry_ = &registry;
  limits_ = limits;
  Loader loader(*this, program, registry, label, limits.memory_bytes);
  Error err = loader.load(method_name);
  if (!err.ok()) release();
  return err;
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
  if (!same_shape(src, dst) && !dst.is_dynamic()) {
    char given[80];
    char expected[80];
    format_shape(given, sizeof given, src.sizes, src.dim);
    format_shape(expected, sizeof expected, dst.sizes, dst.dim);
    return Error::make(ErrorCode::kInvalidArgument, "input %zu has shape %s, the model expects %s", i, given, expected);
  }
  if (!same_shape(src, dst)) {
    Error err = resize(dst, src.sizes, src.dim);
    if (!err.ok()) return Error::make(ErrorCode::kInvalidArgument, "input %zu %s", i, err.message());
  }
  // The caller's elements are in its tensor's dim order (contiguous, for the
  // runner); the program's input may keep another.
  copy_across_dim_orders(src, dst);
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

Error Method::prepare_call(size_t pc, const Instruction& ins) {
  if (SB_DYNAMIC_LISTS && (ins.flags & kRefreshLists)) {
    for (uint32_t a = 0; a < ins.num_args; ++a) {
      const uint32_t list = dynamic_list_of_[ins.args[a] - values_];
      if (list == kNoList) continue;
      const DynamicList& l = dynamic_lists_[list];
      for (uint32_t k = 0; k < l.length; ++k) {
        const Value& item = values_[l.items[k]];
        if (item.tag != Tag::kInt) {
          return Error::make(ErrorCode::kInvalidArgument, "instruction %zu: item %u of an int list is a %s, not an int",
                             pc, static_cast<unsigned>(k), tag_name(item.tag));
        }
        l.storage[k] = item.as_int;
      }
    }
  }
  if (ins.flags & kRecheck) {  // never set on a delegate call: it has no signature
    Error err = check_signature(*ins.kernel, Args(ins.args, ins.num_args), CallSite::kProgram);
    if (!err.ok()) return Error::make(ErrorCode::kInvalidArgument, "instruction %zu: %s", pc, err.message());
  }
  return Error();
}

// kInstructionCost, plus the bytes of every value a kernel call is passed or
// a jump tests: ins.cost counted the bytes that cannot change at load; this
// adds the others (instructions marked kVariableCost).
uint64_t Method::instruction_cost(const Instruction& ins) const {
  uint64_t cost = ins.cost;
  if (SB_CONTROL_FLOW && ins.type == schema::kJumpFalseCall) return sat_add(cost, value_bytes(values_[ins.a]));
  for (uint32_t a = 0; a < ins.num_args; ++a) {
    const Value& v = *ins.args[a];
    if (!(value_flags_[&v - values_] & kVariableBytes)) continue;
    if (v.is_tensor()) {
      // A dynamic tensor, the common case: its bytes here, without the calls
      // value_bytes makes (nbytes, element_size are not inlined at -Os). Every
      // program tensor holds at most 2^40 elements (load, resize): no overflow.
      const Tensor& t = *v.as_tensor;
      uint64_t bytes = element_size(t.dtype);
      for (int32_t d = 0; d < t.dim; ++d) bytes *= static_cast<uint64_t>(t.sizes[d]);
      cost = sat_add(cost, bytes);
    } else {
      cost = sat_add(cost, value_bytes(v));
    }
  }
  return cost;
}

Error Method::execute() {
  uint64_t work = 0;
  last_work_ = 0;
  for (size_t pc = 0; pc < num_instructions_;) {
    const Instruction& ins = instructions_[pc];
    // Charged before the instruction runs: no instruction starts past the budget.
    work = sat_add(work, ins.flags & kVariableCost ? instruction_cost(ins) : ins.cost);
    if (work > limits_.work_bytes) {
      last_work_ = work;
      return Error::make(ErrorCode::kWorkBudget,
                         "execution stopped at instruction %zu: it touched more than %llu bytes, the work budget",
                         pc, static_cast<unsigned long long>(limits_.work_bytes));
    }
    if (limits_.deadline_ns != 0 && monotonic_ns() > limits_.deadline_ns) {
      last_work_ = work;
      return Error::make(ErrorCode::kDeadline, "execution stopped at instruction %zu: past its time limit", pc);
    }
    switch (ins.type) {
      case schema::kKernelCall: {
        if (ins.flags & (kRefreshLists | kRecheck)) {
          Error err = prepare_call(pc, ins);
          if (!err.ok()) return err;
        }
        Error err =
            invoke(*registry_, trace_, *ins.kernel, nullptr, Args(ins.args, ins.num_args), nullptr, limits_.threads);
        if (!err.ok()) return err;
        ++pc;
        break;
      }
#if SB_DELEGATES
      case schema::kDelegateCall: {
        if (ins.flags & kRefreshLists) {
          Error err = prepare_call(pc, ins);
          if (!err.ok()) return err;
        }
        const Delegate& d = delegates_[ins.a];
        const BackendExecutionContext context{ins.a, pc, registry_, trace_, ins.b, limits_.threads};
        Error err = d.backend->backend->execute(context, d.handle, Args(ins.args, ins.num_args));
        if (!err.ok()) {
          return Error::make(err.code(), "instruction %zu (delegate %u, %s): %s", pc, static_cast<unsigned>(ins.a),
                             d.backend->id, err.message());
        }
        ++pc;
        break;
      }
#endif
#if SB_CONTROL_FLOW
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
#endif
      default:  // FreeCall: memory is planned, nothing to release.
        ++pc;
        break;
    }
  }
  last_work_ = work;
  return Error();
}

}  // namespace sb
