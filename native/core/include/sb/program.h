// A loaded .pte file: validates the container (flatbuffer identifier,
// extended header, segment table) and gives access to constant data. The
// caller owns the file bytes and keeps them alive while the Program is used.
#pragma once

#include <cstddef>
#include <cstdint>

#include "sb/error.h"

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

 private:
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t program_size_ = 0;  // the flatbuffer part, before any segments
  uint64_t segment_base_ = 0;
};

}  // namespace sb
