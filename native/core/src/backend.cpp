// The delegate machinery: registering backends, resolving a delegate's
// payload and compile specs, the program's named data. Everything here is
// reached from OpRegistry::add_backend, so a build that registers no backend
// links none of it (the loader then only names the missing backends).
#include <cstdio>
#include <cstring>

#include "sb/backend.h"
#include "sb/checked.h"
#include "sb/flatbuffer.h"
#include "sb/program.h"
#include "sb/registry.h"
#include "features.h"
#include "schema.h"

#ifndef SB_DELEGATES
#define SB_DELEGATES 0
#endif

namespace sb {
namespace {

Error invalid(const char* what) { return Error::invalid_program("%s", what); }

// A delegate's processed payload: inline in the flatbuffer or a segment.
Result<Span<const uint8_t>> payload(const Program& program, fb::Reader& r, const fb::Table& delegate,
                                   const char* backend_id) {
  const fb::Table ref = r.table(delegate, schema::delegate::kProcessed);
  const int8_t location = r.scalar<int8_t>(ref, schema::data_reference::kLocation, schema::data_reference::kInline);
  const uint32_t index = r.scalar<uint32_t>(ref, schema::data_reference::kIndex, 0);
  if (r.failed() || !ref.present) return invalid("a delegate's payload reference is missing or out of bounds");
  if (location == schema::data_reference::kInline) return program.inline_delegate_data(index);
  if (location == schema::data_reference::kSegment) {
    char what[96];
    snprintf(what, sizeof what, "the %s delegate", backend_id);
    return program.segment(index, what);
  }
  return Error::invalid_program("a delegate's payload has unknown location %d",
                                static_cast<int>(location));
}

Error init_delegate(const Program& program, fb::Reader& r, const fb::Table& delegate, const Backend& backend,
                    BackendInitContext& context, void** handle) {
  Result<Span<const uint8_t>> processed = payload(program, r, delegate, backend.id);
  if (!processed.ok()) return processed.error;

  // Compile specs point into the program; the table of them is the method's.
  const fb::Vector specs = r.vector(delegate, schema::delegate::kCompileSpecs, 4);
  if (r.failed()) return invalid("a delegate's compile specs are out of bounds");
  CompileSpec* list = nullptr;
  if (specs.length > 0) {
    Result<void*> memory = context.allocate(sat_mul(specs.length, sizeof(CompileSpec)), "compile specs");
    if (!memory.ok()) return memory.error;
    list = static_cast<CompileSpec*>(memory.value);
  }
  for (uint32_t i = 0; i < specs.length; ++i) {
    const fb::Table spec = r.table_element(specs, i);
    const fb::String key = r.string(spec, schema::compile_spec::kKey);
    const fb::Vector value = r.vector(spec, schema::compile_spec::kValue, 1);
    if (r.failed()) return invalid("a delegate's compile spec is out of bounds");
    list[i] = CompileSpec{Span<const char>(key.data, key.length), Span<const uint8_t>(r.bytes(value), value.length)};
  }

  Result<void*> made = backend.backend->init(context, processed.value, Span<const CompileSpec>(list, specs.length));
  if (!made.ok()) {
    // Missing ops name the delegate themselves (a backend that runs kernels
    // lists the ones the build lacks): the whole line is theirs.
    if (made.error.code() == ErrorCode::kMissingOperator) return made.error;
    // The backend's message, under the delegate's name: one line.
    return Error::make(made.error.code(), "delegate %u (%s): %s", static_cast<unsigned>(context.delegate_index()),
                       backend.id, made.error.message());
  }
  *handle = made.value;
  return Error();
}

// Named data entry `i`'s key and segment index.
bool named_entry(fb::Reader& r, size_t i, fb::String* key, uint32_t* segment) {
  const fb::Vector list = r.vector(r.root(), schema::program::kNamedData, 4);
  if (i >= list.length) return false;
  const fb::Table entry = r.table_element(list, static_cast<uint32_t>(i));
  *key = r.string(entry, schema::named_data::kKey);
  *segment = r.scalar<uint32_t>(entry, schema::named_data::kSegmentIndex, 0);
  return !r.failed();
}

}  // namespace

Error OpRegistry::add_backend(const Backend& backend) {
  if (backend.id == nullptr || backend.backend == nullptr) {
    return Error::make(ErrorCode::kInvalidArgument, "a backend needs an id and an implementation");
  }
#if !SB_DELEGATES
  return Error::make(ErrorCode::kNotSupported, "backend %s: this runtime is built without delegates (SB_DELEGATES)",
                     backend.id);
#endif
  if (find_backend(backend.id, strlen(backend.id)) != nullptr) {
    return Error::make(ErrorCode::kInvalidArgument, "backend %s is registered twice", backend.id);
  }
  if (num_backends_ == kMaxBackends) {
    return Error::make(ErrorCode::kOutOfMemory, "backend registry is full (%zu backends)", kMaxBackends);
  }
  backends_[num_backends_++] = &backend;
  delegate_init_ = &init_delegate;
  return Error();
}

Result<void*> BackendInitContext::allocate(uint64_t bytes, const char* what) {
  void* out = nullptr;
  Error err = allocate_(owner_, bytes, what, &out);
  if (!err.ok()) return err;
  return out;
}

size_t NamedData::size() const {
  if (program_ == nullptr) return 0;
  fb::Reader r(program_->data(), program_->flatbuffer_size());
  const fb::Vector list = r.vector(r.root(), schema::program::kNamedData, 4);
  return r.failed() ? 0 : list.length;
}

Span<const char> NamedData::key(size_t i) const {
  if (program_ == nullptr) return Span<const char>();
  fb::Reader r(program_->data(), program_->flatbuffer_size());
  fb::String key;
  uint32_t segment = 0;
  if (!named_entry(r, i, &key, &segment)) return Span<const char>();
  return Span<const char>(key.data, key.length);
}

Result<Span<const uint8_t>> NamedData::get(Span<const char> key) const {
  // No program (xnnpack_payload_fuzzer inits a backend on a payload alone): every key is missing.
  fb::Vector list;
  fb::Reader r(program_ != nullptr ? program_->data() : nullptr, program_ != nullptr ? program_->flatbuffer_size() : 0);
  if (program_ != nullptr) {
    list = r.vector(r.root(), schema::program::kNamedData, 4);
    if (r.failed()) return invalid("the named data table is out of bounds");
  }
  for (uint32_t i = 0; i < list.length; ++i) {
    fb::String name;
    uint32_t segment = 0;
    if (!named_entry(r, i, &name, &segment)) return invalid("a named data entry is out of bounds");
    if (name.length == key.size() && memcmp(name.data, key.data(), key.size()) == 0) {
      // A key the program and a data file both hold is ambiguous: refused, as ExecuTorch's merged data map
      // refuses it, rather than one copy silently winning.
      for (const DataFile& file : program_->data_files()) {
        if (!SB_EXTERNAL_DATA || file.find(key) < 0) continue;
        char shown[80];
        format_key(shown, sizeof shown, key);
        return Error::make(ErrorCode::kInvalidProgram, "named data '%s' is in both the program and %s", shown,
                           file.label());
      }
      return program_->segment(segment, "named data");
    }
  }
  // Not in the program: in its data files (.ptd), where delegates' external weights go.
  if (SB_EXTERNAL_DATA && program_ != nullptr && !program_->data_files().empty()) {
    Result<DataEntry> external = program_->external_data(key, "named data");
    if (!external.ok()) return external.error;
    return external.value.bytes;
  }
  // The key comes from a payload: printable characters only, and not too many.
  char shown[80];
  format_key(shown, sizeof shown, key);
  if (!SB_EXTERNAL_DATA) {
    // Delegates keep weights tagged for a file in a .ptd: the likely reason a key is not in the program.
    return Error::make(ErrorCode::kNotSupported, "named data '%s' is not in the program, and %s", shown,
                       kNoExternalData);
  }
  return Error::invalid_program("no named data '%s' (%u entries)", shown,
                                static_cast<unsigned>(list.length));
}

Result<Span<const uint8_t>> NamedData::get(const char* key) const {
  return get(Span<const char>(key, strlen(key)));
}

}  // namespace sb
