// A minimal, bounds-checked reader for the subset of the FlatBuffers wire
// format that .pte files use: tables, vectors of scalars/tables, strings and
// unions. Every access is checked against the buffer; the first violation
// latches `failed()` and later reads return defaults, so callers can read a
// whole structure and check once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "sb/checked.h"

namespace sb::fb {

// The little-endian T at p, which need not be aligned for T: the flatbuffer's scalars, and the fixed
// headers ExecuTorch writes before a .pte's or .ptd's flatbuffer.
template <typename T>
T read_unaligned(const uint8_t* p) {
  T v;
  memcpy(&v, p, sizeof(T));
  return v;
}

struct Table {
  uint32_t pos = 0;
  uint32_t vtable = 0;
  uint16_t vtable_size = 0;
  bool present = false;
};

struct Vector {
  uint32_t pos = 0;  // first element
  uint32_t length = 0;
};

struct String {
  const char* data = nullptr;
  uint32_t length = 0;
};

class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  bool failed() const { return failed_; }
  // Offset of the first out-of-range access, for error messages.
  uint64_t failed_at() const { return failed_at_; }

  Table root() { return table_at(0); }

  // Read as the unsigned integer of T's size, so that the reader holds one
  // copy of the field lookup per size rather than one per type.
  template <typename T>
  T scalar(const Table& t, int field, T fallback) {
    using Bits = typename BitsOf<sizeof(T)>::type;
    Bits bits = scalar_bits<Bits>(t, field, bit_copy<Bits>(fallback));
    return bit_copy<T>(bits);
  }
  Table table(const Table& t, int field) {
    const uint32_t off = field_offset(t, field);
    return off ? table_at(static_cast<uint64_t>(t.pos) + off) : Table{};
  }
  Vector vector(const Table& t, int field, uint32_t element_size) {
    const uint32_t off = field_offset(t, field);
    if (!off) return Vector{};
    const uint64_t at = indirect(static_cast<uint64_t>(t.pos) + off);
    Vector v;
    v.length = read<uint32_t>(at);
    v.pos = static_cast<uint32_t>(at + 4);
    if (!in_bounds(v.pos, sat_mul(v.length, element_size))) return Vector{};
    return v;
  }
  String string(const Table& t, int field) {
    const Vector v = vector(t, field, 1);
    return String{reinterpret_cast<const char*>(data_ + v.pos), v.length};
  }
  template <typename T>
  T element(const Vector& v, uint32_t i) {
    if (i >= v.length) return fail<T>(v.pos);
    return read<T>(static_cast<uint64_t>(v.pos) + static_cast<uint64_t>(i) * sizeof(T));
  }
  Table table_element(const Vector& v, uint32_t i) {
    if (i >= v.length) return fail<Table>(v.pos);
    return table_at(static_cast<uint64_t>(v.pos) + static_cast<uint64_t>(i) * 4);
  }
  const uint8_t* bytes(const Vector& v) const { return data_ + v.pos; }

  bool in_bounds(uint64_t pos, uint64_t len) {
    if (pos <= size_ && len <= size_ - pos) return true;
    fail<int>(pos);
    return false;
  }

 private:
  template <size_t kSize>
  struct BitsOf;
  template <typename To, typename From>
  static To bit_copy(From from) {
    static_assert(sizeof(To) == sizeof(From), "same size");
    To to;
    memcpy(&to, &from, sizeof to);
    return to;
  }
  template <typename Bits>
  Bits scalar_bits(const Table& t, int field, Bits fallback) {
    const uint32_t off = field_offset(t, field);
    return off ? read<Bits>(static_cast<uint64_t>(t.pos) + off) : fallback;
  }

  template <typename T>
  T fail(uint64_t at) {
    if (!failed_) failed_at_ = at;
    failed_ = true;
    return T{};
  }

  template <typename T>
  T read(uint64_t pos) {
    if (failed_ || !in_bounds(pos, sizeof(T))) return T{};
    return read_unaligned<T>(data_ + pos);
  }

  // Follows a uoffset stored at `pos`.
  uint64_t indirect(uint64_t pos) { return pos + read<uint32_t>(pos); }

  Table table_at(uint64_t offset_pos) {
    Table t;
    const uint64_t pos = indirect(offset_pos);
    const int64_t vt = static_cast<int64_t>(pos) - read<int32_t>(pos);
    if (failed_ || vt < 0) return fail<Table>(pos);
    t.pos = static_cast<uint32_t>(pos);
    t.vtable = static_cast<uint32_t>(vt);
    t.vtable_size = read<uint16_t>(t.vtable);
    const uint16_t table_size = read<uint16_t>(t.vtable + 2);
    if (failed_ || t.vtable_size < 4 || !in_bounds(t.vtable, t.vtable_size) || !in_bounds(t.pos, table_size)) {
      return fail<Table>(pos);
    }
    t.present = true;
    return t;
  }

  // Offset of `field` inside table `t`, or 0 when absent.
  uint32_t field_offset(const Table& t, int field) {
    if (!t.present || failed_) return 0;
    const uint32_t slot = 4 + 2 * static_cast<uint32_t>(field);
    if (slot + 2 > t.vtable_size) return 0;
    return read<uint16_t>(static_cast<uint64_t>(t.vtable) + slot);
  }

  const uint8_t* data_;
  size_t size_;
  bool failed_ = false;
  uint64_t failed_at_ = 0;
};

template <>
struct Reader::BitsOf<1> {
  using type = uint8_t;
};
template <>
struct Reader::BitsOf<2> {
  using type = uint16_t;
};
template <>
struct Reader::BitsOf<4> {
  using type = uint32_t;
};
template <>
struct Reader::BitsOf<8> {
  using type = uint64_t;
};

}  // namespace sb::fb
