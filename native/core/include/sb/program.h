// A loaded .pte file: validates the container (flatbuffer identifier,
// extended header, segment table) and gives access to constant data. The
// caller owns the file bytes and keeps them alive while the Program is used.
// Data the program keeps outside (.ptd files, sb/data_file.h) is attached with
// use_data_files(); the caller keeps those alive too.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sb/data_file.h"
#include "sb/error.h"
#include "sb/span.h"

namespace sb {

class Program {
 public:
  static Result<Program> load(const uint8_t* data, size_t size);

  Program() = default;
  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  size_t flatbuffer_size() const { return program_size_; }
  uint64_t segment_base() const { return segment_base_; }

  // Bytes of constant buffer `index`, checked to hold at least `nbytes`.
  Result<const uint8_t*> constant_data(uint32_t index, size_t nbytes) const;

  // The bytes of segment `index` (Program.segments, after the flatbuffer),
  // checked to lie inside the file. `what` names its user in the message.
  Result<Span<const uint8_t>> segment(uint32_t index, const char* what) const;
  // The bytes of inline delegate data `index` (Program.backend_delegate_data).
  Result<Span<const uint8_t>> inline_delegate_data(uint32_t index) const;
  // Initial bytes of mutable state: offset `offset_index` of
  // Program.mutable_data_segments[list_index], checked to hold `nbytes`.
  Result<const uint8_t*> mutable_data(uint64_t list_index, uint32_t offset_index, size_t nbytes) const;

  // The data files external tensors and named data are looked up in.
  void use_data_files(const DataFile* files, size_t count) { data_files_ = Span<const DataFile>(files, count); }
  Span<const DataFile> data_files() const { return data_files_; }
  // The entry named `key` in the data files: a missing-data error naming the
  // key (and `user`) when none has it, or when two do (which one is meant?).
  Result<DataEntry> external_data(Span<const char> key, const char* user) const;
  // Whether `p` points into the program's bytes or a data file's: constant data.
  bool holds(const void* p) const;

 private:
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t program_size_ = 0;  // the flatbuffer part, before any segments
  uint64_t segment_base_ = 0;
  Span<const DataFile> data_files_;
};

}  // namespace sb
