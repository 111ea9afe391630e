// The payload-inspecting test backend: see payload_inspector.h.
#include "payload_inspector.h"

#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <string>

#include "sb/checked.h"
#include "sb/flatbuffer.h"

namespace sb_test {
namespace {

using sb::Error;
using sb::ErrorCode;
using sb::Result;
using sb::Span;

// XNNGraph (schema.fbs) fields.
constexpr int kXNodes = 1, kXValues = 2, kInputIds = 4, kOutputIds = 5, kConstantData = 8;
constexpr int kConstOffset = 0, kConstSize = 1, kConstNamedKey = 2;
constexpr size_t kHeaderLength = 30;

uint64_t read_le(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

Error bad(const char* what) { return Error::make(ErrorCode::kInvalidProgram, "XNNPACK payload: %s", what); }

// What one init() made: the graph's external ids, for execute().
struct Inspected {
  uint32_t num_inputs;
  uint32_t num_outputs;
};

// execute() records here (no heap); main prints after the run.
struct CallRecord {
  uint32_t delegate;
  size_t instruction;
  char args[200];
};
CallRecord g_calls[16];
size_t g_num_calls = 0;

void append(std::string* out, const char* format, ...) __attribute__((format(printf, 2, 3)));
void append(std::string* out, const char* format, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, format);
  vsnprintf(buf, sizeof buf, format, ap);
  va_end(ap);
  *out += buf;
}

std::string ids(sb::fb::Reader& r, const sb::fb::Vector& v) {
  std::string out;
  for (uint32_t i = 0; i < v.length; ++i) append(&out, i ? ",%u" : "%u", r.element<uint32_t>(v, i));
  return out;
}

class PayloadInspector final : public sb::BackendInterface {
 public:
  Result<void*> init(sb::BackendInitContext& context, Span<const uint8_t> processed,
                     Span<const sb::CompileSpec> specs) const override {
    const uint8_t* p = processed.data();
    if (processed.size() < kHeaderLength) return bad("shorter than its header");
    if (memcmp(p + 4, "XH00", 4) != 0) return bad("no XH00 header");
    const uint64_t length = read_le(p + 8, 2);
    const uint64_t fb_offset = read_le(p + 10, 4);
    const uint64_t fb_size = read_le(p + 14, 4);
    const uint64_t const_offset = read_le(p + 18, 4);
    const uint64_t const_size = read_le(p + 22, 8);
    if (length != kHeaderLength) return bad("header length is not 30");
    if (sb::sat_add(fb_offset, fb_size) > processed.size() || fb_size < 8) return bad("flatbuffer out of bounds");
    if (sb::sat_add(const_offset, const_size) > processed.size()) return bad("constant data out of bounds");
    const uint8_t* graph = p + fb_offset;
    if (memcmp(graph + 4, "XN01", 4) != 0) return bad("flatbuffer identifier is not XN01");

    sb::fb::Reader r(graph, static_cast<size_t>(fb_size));
    const sb::fb::Table root = r.root();
    const sb::fb::Vector nodes = r.vector(root, kXNodes, 4);
    const sb::fb::Vector values = r.vector(root, kXValues, 4);
    const sb::fb::Vector inputs = r.vector(root, kInputIds, 4);
    const sb::fb::Vector outputs = r.vector(root, kOutputIds, 4);
    const sb::fb::Vector constants = r.vector(root, kConstantData, 4);
    if (r.failed() || !root.present) return bad("XNNGraph out of bounds");

    std::string line;
    append(&line, "init delegate=%u backend=%s method=%s payload=%zu header=%llu flatbuffer=%llu+%llu constants=%llu+%llu",
           context.delegate_index(), context.backend_id(), context.method_name(), processed.size(),
           static_cast<unsigned long long>(length), static_cast<unsigned long long>(fb_offset),
           static_cast<unsigned long long>(fb_size), static_cast<unsigned long long>(const_offset),
           static_cast<unsigned long long>(const_size));
    append(&line, " identifier=XN01 nodes=%u values=%u inputs=%s outputs=%s specs=", nodes.length, values.length,
           ids(r, inputs).c_str(), ids(r, outputs).c_str());
    for (size_t i = 0; i < specs.size(); ++i) {
      append(&line, "%s%.*s:%zu", i ? "," : "", static_cast<int>(specs[i].key.size()), specs[i].key.data(),
             specs[i].value.size());
    }
    line += " named=";
    // Every constant the graph uses: under a named-data key, or at an offset
    // of the payload's constant data.
    bool first = true;
    for (uint32_t i = 0; i < constants.length; ++i) {
      const sb::fb::Table c = r.table_element(constants, i);
      const sb::fb::String key = r.string(c, kConstNamedKey);
      const uint64_t offset = r.scalar<uint64_t>(c, kConstOffset, 0);
      const uint64_t size = r.scalar<uint64_t>(c, kConstSize, 0);
      if (r.failed()) return bad("constant entry out of bounds");
      if (key.length == 0) {
        if (sb::sat_add(offset, size) > const_size) return bad("constant past the constant data");
        continue;
      }
      Result<Span<const uint8_t>> data = context.named_data().get(Span<const char>(key.data, key.length));
      if (!data.ok()) return data.error;
      append(&line, "%s%.*s:%zu", first ? "" : ",", static_cast<int>(key.length), key.data, data.value.size());
      first = false;
    }
    printf("%s\n", line.c_str());

    Result<void*> memory = context.allocate(sizeof(Inspected), "the inspector's state");
    if (!memory.ok()) return memory.error;
    auto* state = static_cast<Inspected*>(memory.value);
    state->num_inputs = inputs.length;
    state->num_outputs = outputs.length;
    return memory.value;
  }

  Error execute(const sb::BackendExecutionContext& context, void* handle, sb::Args args) const override {
    const auto& state = *static_cast<const Inspected*>(handle);
    if (args.size() != state.num_inputs + state.num_outputs) {
      return Error::make(ErrorCode::kInvalidArgument, "the call passes %zu values, the graph has %u inputs and %u outputs",
                         args.size(), state.num_inputs, state.num_outputs);
    }
    CallRecord& record = g_calls[g_num_calls < 16 ? g_num_calls++ : 15];
    record.delegate = context.delegate_index;
    record.instruction = context.instruction;
    size_t used = 0;
    record.args[0] = '\0';
    for (size_t a = 0; a < args.size(); ++a) {
      if (!args[a]->is_tensor()) return Error::make(ErrorCode::kInvalidArgument, "value %zu is not a tensor", a);
      const sb::Tensor& t = *args[a]->as_tensor;
      used += snprintf(record.args + used, sizeof record.args - used, "%s%s[", a ? "," : "", sb::scalar_type_name(t.dtype));
      for (int32_t d = 0; d < t.dim && used < sizeof record.args; ++d) {
        used += snprintf(record.args + used, sizeof record.args - used, d ? ",%lld" : "%lld",
                         static_cast<long long>(t.sizes[d]));
      }
      if (used < sizeof record.args) used += snprintf(record.args + used, sizeof record.args - used, "]");
      if (used >= sizeof record.args) used = sizeof record.args - 1;
      if (a >= state.num_inputs && t.dtype == sb::ScalarType::kFloat) {
        const float fill = 0.25f * static_cast<float>(a - state.num_inputs + 1);
        float* out = t.data_as<float>();
        for (int64_t i = 0; i < t.numel(); ++i) out[i] = fill;
      }
    }
    return Error();
  }
};

const PayloadInspector kInspector;

}  // namespace

const sb::Backend payload_inspector{"XnnpackBackend", &kInspector};

void print_calls() {
  for (size_t i = 0; i < g_num_calls; ++i) {
    printf("execute delegate=%u instruction=%zu args=%s\n", g_calls[i].delegate, g_calls[i].instruction, g_calls[i].args);
  }
}

}  // namespace sb_test

