// A loaded .pte file: validates the container (flatbuffer identifier,
// extended header, segment table) and gives access to constant data. The
// caller owns the file bytes and keeps them alive while the Program is used.
#pragma once

#include <cstddef>
#include <cstdint>

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

 private:
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t program_size_ = 0;  // the flatbuffer part, before any segments
  uint64_t segment_base_ = 0;
};

}  // namespace sb
