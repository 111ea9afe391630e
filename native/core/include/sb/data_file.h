// A loaded .ptd file: ExecuTorch's FlatTensor format, the named data a
// program keeps outside its .pte (program-data separation). Portable
// programs look their external constants up here by fully qualified name;
// delegates look their weights up by key, as in the program's own named data.
//
// load() validates the whole file once (header, flatbuffer, every segment
// and every entry), so lookups need no further checks, and sorts an index of
// the keys (by their bytes), so a lookup is a binary search: a file of many
// keys, looked up by a program of many names, costs O((keys + lookups) log
// keys), not O(keys * lookups). A key the file holds twice is refused. The
// caller owns the bytes, aligned to 16 as malloc returns them, and keeps them
// alive while the DataFile (and any program using it) is.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sb/error.h"
#include "sb/limits.h"
#include "sb/scalar_type.h"
#include "sb/span.h"
#include "sb/tensor.h"

namespace sb {

// What a data file says about one entry: its bytes and, when it stored a
// tensor (portable constants do; XNNPACK weights do not), its layout.
struct DataEntry {
  Span<const uint8_t> bytes;
  bool has_layout = false;
  ScalarType dtype = ScalarType::kFloat;
  int32_t dim = 0;
  int64_t sizes[kMaxDims] = {};
  uint8_t dim_order[kMaxDims] = {};
};

class DataFile {
 public:
  // `label` names the file in error messages (e.g. its file name); the
  // DataFile keeps the pointer. The key index (4 bytes a key) is the only
  // memory load() allocates, checked against limits.memory_bytes before it
  // is (as Method::load checks its tables against its own); the DataFile
  // owns it, and so moves but does not copy.
  static Result<DataFile> load(const uint8_t* data, size_t size, const char* label,
                               const RuntimeLimits& limits = RuntimeLimits());

  DataFile() = default;
  ~DataFile();
  DataFile(DataFile&& other) noexcept;
  DataFile& operator=(DataFile&& other) noexcept;
  DataFile(const DataFile&) = delete;
  DataFile& operator=(const DataFile&) = delete;
  const char* label() const { return label_; }
  size_t size() const { return num_entries_; }
  // Entry `i`'s key (not NUL-terminated).
  Span<const char> key(size_t i) const;
  // Entry `i`, as load() checked it.
  DataEntry entry(size_t i) const;
  // The index of the entry named `key`, or -1.
  int64_t find(Span<const char> key) const;
  // Whether `p` points into this file's bytes.
  bool holds(const void* p) const;

 private:
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  const char* label_ = "";
  size_t flatbuffer_size_ = 0;
  uint64_t segment_base_ = 0;
  uint32_t num_entries_ = 0;
  uint32_t* index_ = nullptr;  // the entries' indices, ordered by key
};

// A key fit for a one-line message: printable ASCII, cut after 64 bytes.
void format_key(char* out, size_t out_size, Span<const char> key);

}  // namespace sb
