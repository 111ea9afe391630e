#include "sb/program.h"

#include <cstring>

#include "sb/checked.h"
#include "sb/flatbuffer.h"
#include "features.h"
#include "schema.h"

namespace sb {
namespace {

constexpr char kIdentifier[] = "ET12";
constexpr char kHeaderMagic[] = "eh00";
constexpr size_t kHeaderOffset = 8;
constexpr uint32_t kHeaderMinLength = 24;  // magic, length, program_size, segment_base


Error invalid(const char* what) { return Error::invalid_program("%s", what); }

}  // namespace

Result<Program> Program::load(const uint8_t* data, size_t size) {
  if (data == nullptr || size < kHeaderOffset) {
    return Error::invalid_program("file is %zu bytes, too small for a .pte", size);
  }
  if (memcmp(data + 4, kIdentifier, 4) != 0) {
    char seen[5] = {};
    for (int i = 0; i < 4; ++i) {
      const char c = static_cast<char>(data[4 + i]);
      seen[i] = (c >= 32 && c < 127) ? c : '?';
    }
    return Error::make(ErrorCode::kInvalidProgram,
                       "not an ExecuTorch program: file identifier is '%s', expected '%s'", seen, kIdentifier);
  }

  Program p;
  p.data_ = data;
  p.size_ = size;
  p.program_size_ = size;
  if (size >= kHeaderOffset + kHeaderMinLength && memcmp(data + kHeaderOffset, kHeaderMagic, 4) == 0) {
    const uint32_t length = fb::read_unaligned<uint32_t>(data + kHeaderOffset + 4);
    const uint64_t program_size = fb::read_unaligned<uint64_t>(data + kHeaderOffset + 8);
    const uint64_t segment_base = fb::read_unaligned<uint64_t>(data + kHeaderOffset + 16);
    if (length < kHeaderMinLength) return invalid("extended header is too short");
    if (program_size > size) {
      return Error::invalid_program(
          "header says the program is %llu bytes but the file has %zu (truncated?)",
          static_cast<unsigned long long>(program_size), size);
    }
    if (segment_base > size) {
      return Error::invalid_program(
          "segments start at %llu, past the end of the %zu-byte file (truncated?)",
          static_cast<unsigned long long>(segment_base), size);
    }
    p.program_size_ = static_cast<size_t>(program_size);
    p.segment_base_ = segment_base;
  }

  // Validate the root and the execution plan vector up front, so a file that
  // is not a program at all fails here with one clear message.
  fb::Reader r(data, p.program_size_);
  const fb::Table root = r.root();
  const fb::Vector plans = r.vector(root, schema::program::kExecutionPlan, 4);
  if (r.failed() || !root.present) return invalid("flatbuffer root is out of bounds (truncated or corrupt)");
  if (plans.length == 0) return invalid("program has no execution plan");
  return p;
}

Result<const uint8_t*> Program::constant_data(uint32_t index, size_t nbytes) const {
  fb::Reader r(data_, program_size_);
  const fb::Table root = r.root();
  const fb::Table constant_segment = r.table(root, schema::program::kConstantSegment);
  const fb::Vector offsets = r.vector(constant_segment, schema::subsegment::kOffsets, 8);

  if (offsets.length > 0) {
    // Current layout: constants live in a segment after the flatbuffer.
    if (index >= offsets.length) {
      return Error::invalid_program(
          "constant buffer index %u out of range (%u constants)", static_cast<unsigned>(index),
          static_cast<unsigned>(offsets.length));
    }
    const uint32_t segment_index = r.scalar<uint32_t>(constant_segment, schema::subsegment::kSegmentIndex, 0);
    const fb::Vector segments = r.vector(root, schema::program::kSegments, 4);
    const fb::Table segment = r.table_element(segments, segment_index);
    const uint64_t seg_offset = r.scalar<uint64_t>(segment, schema::segment::kOffset, 0);
    const uint64_t seg_size = r.scalar<uint64_t>(segment, schema::segment::kSize, 0);
    const uint64_t offset = r.element<uint64_t>(offsets, index);
    if (r.failed()) return invalid("constant segment table is out of bounds");
    if (sat_add(offset, nbytes) > seg_size) {
      return Error::invalid_program(
          "constant %u (%zu bytes at offset %llu) overruns its %llu-byte segment",
          static_cast<unsigned>(index), nbytes, static_cast<unsigned long long>(offset),
          static_cast<unsigned long long>(seg_size));
    }
    const uint64_t start = sat_add(segment_base_, seg_offset);
    if (sat_add(sat_add(start, offset), nbytes) > size_) {
      return Error::invalid_program(
          "constant %u lies past the end of the %zu-byte file (truncated?)", static_cast<unsigned>(index),
          size_);
    }
    return data_ + start + offset;
  }

  // Legacy layout: constants inline in the flatbuffer.
  if (!SB_INLINE_CONSTANTS) {
    return Error::make(ErrorCode::kNotSupported, "constant %u is inside the program's flatbuffer (an older layout): %s",
                       static_cast<unsigned>(index), kNoInlineConstants);
  }
  const fb::Vector buffers = r.vector(root, schema::program::kConstantBuffer, 4);
  if (index >= buffers.length) {
    return Error::invalid_program("constant buffer index %u out of range (%u)",
                                  static_cast<unsigned>(index), static_cast<unsigned>(buffers.length));
  }
  const fb::Table buffer = r.table_element(buffers, index);
  const fb::Vector storage = r.vector(buffer, schema::buffer::kStorage, 1);
  if (r.failed()) return invalid("constant buffer table is out of bounds");
  if (storage.length < nbytes) {
    return Error::invalid_program("constant %u has %u bytes, tensor needs %zu",
                                  static_cast<unsigned>(index), static_cast<unsigned>(storage.length), nbytes);
  }
  return r.bytes(storage);
}

Result<Span<const uint8_t>> Program::segment(uint32_t index, const char* what) const {
  fb::Reader r(data_, program_size_);
  const fb::Vector segments = r.vector(r.root(), schema::program::kSegments, 4);
  if (r.failed()) return invalid("segment table is out of bounds");
  if (index >= segments.length) {
    return Error::invalid_program("%s names segment %u, out of range (%u segments)",
                                  what, static_cast<unsigned>(index), static_cast<unsigned>(segments.length));
  }
  const fb::Table segment = r.table_element(segments, index);
  const uint64_t offset = r.scalar<uint64_t>(segment, schema::segment::kOffset, 0);
  const uint64_t size = r.scalar<uint64_t>(segment, schema::segment::kSize, 0);
  if (r.failed()) return invalid("segment table is out of bounds");
  const uint64_t start = sat_add(segment_base_, offset);
  if (segment_base_ == 0 || sat_add(start, size) > size_) {
    return Error::invalid_program(
        "segment %u of %s (%llu bytes at offset %llu) lies past the end of the %zu-byte "
        "file (truncated?)",
        static_cast<unsigned>(index), what, static_cast<unsigned long long>(size),
        static_cast<unsigned long long>(offset), size_);
  }
  return Span<const uint8_t>(data_ + start, static_cast<size_t>(size));
}

Result<Span<const uint8_t>> Program::inline_delegate_data(uint32_t index) const {
  fb::Reader r(data_, program_size_);
  const fb::Vector list = r.vector(r.root(), schema::program::kBackendDelegateData, 4);
  if (r.failed()) return invalid("inline delegate data table is out of bounds");
  if (index >= list.length) {
    return Error::invalid_program("inline delegate data %u out of range (%u entries)",
                                  static_cast<unsigned>(index), static_cast<unsigned>(list.length));
  }
  const fb::Vector bytes = r.vector(r.table_element(list, index), schema::inline_data::kData, 1);
  if (r.failed()) return invalid("inline delegate data is out of bounds");
  return Span<const uint8_t>(r.bytes(bytes), bytes.length);
}

Result<const uint8_t*> Program::mutable_data(uint64_t list_index, uint32_t offset_index, size_t nbytes) const {
  fb::Reader r(data_, program_size_);
  const fb::Table root = r.root();
  const fb::Vector lists = r.vector(root, schema::program::kMutableDataSegments, 4);
  if (r.failed()) return invalid("mutable data table is out of bounds");
  if (list_index >= lists.length) {
    return Error::invalid_program("mutable data list %llu out of range (%u lists)",
                                  static_cast<unsigned long long>(list_index), static_cast<unsigned>(lists.length));
  }
  const fb::Table list = r.table_element(lists, static_cast<uint32_t>(list_index));
  const uint32_t segment_index = r.scalar<uint32_t>(list, schema::subsegment::kSegmentIndex, 0);
  const fb::Vector offsets = r.vector(list, schema::subsegment::kOffsets, 8);
  if (r.failed()) return invalid("mutable data list is out of bounds");
  if (offset_index >= offsets.length) {
    return Error::invalid_program("mutable data %u out of range (%u entries)",
                                  static_cast<unsigned>(offset_index), static_cast<unsigned>(offsets.length));
  }
  const uint64_t offset = r.element<uint64_t>(offsets, offset_index);
  Result<Span<const uint8_t>> bytes = segment(segment_index, "mutable data");
  if (!bytes.ok()) return bytes.error;
  if (sat_add(offset, nbytes) > bytes.value.size()) {
    return Error::invalid_program(
        "mutable data %u (%zu bytes at offset %llu) overruns its %zu-byte segment",
        static_cast<unsigned>(offset_index), nbytes, static_cast<unsigned long long>(offset),
        bytes.value.size());
  }
  return bytes.value.data() + offset;
}

Result<DataEntry> Program::external_data(Span<const char> key, const char* user) const {
  char shown[80];
  format_key(shown, sizeof shown, key);
  const DataFile* found = nullptr;
  int64_t index = -1;
  for (const DataFile& file : data_files_) {
    const int64_t at = file.find(key);
    if (at < 0) continue;
    if (found != nullptr) {
      return Error::make(ErrorCode::kInvalidProgram, "%s: data '%s' is in both %s and %s", user, shown, found->label(),
                         file.label());
    }
    found = &file;
    index = at;
  }
  if (found == nullptr) {
    if (data_files_.empty()) {
      return Error::make(ErrorCode::kInvalidProgram, "%s: data '%s' is outside the .pte file, and no data file (.ptd) was given",
                         user, shown);
    }
    return Error::make(ErrorCode::kInvalidProgram, "%s: no data file holds '%s' (%zu file%s given)", user, shown,
                       data_files_.size(), data_files_.size() == 1 ? "" : "s");
  }
  return found->entry(static_cast<size_t>(index));
}

bool Program::holds(const void* p) const {
  const auto* bytes = static_cast<const uint8_t*>(p);
  if (bytes != nullptr && bytes >= data_ && bytes < data_ + size_) return true;
  if (!SB_EXTERNAL_DATA) return false;
  for (const DataFile& file : data_files_) {
    if (file.holds(p)) return true;
  }
  return false;
}

}  // namespace sb
