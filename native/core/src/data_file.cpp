#include "sb/data_file.h"

#include <cstdlib>
#include <cstring>

#include "sb/checked.h"
#include "sb/flatbuffer.h"
#include "schema.h"

namespace sb {
namespace {

constexpr char kIdentifier[] = "FT01";
constexpr char kHeaderMagic[] = "FH01";
constexpr size_t kHeaderOffset = 8;
// magic, length, flatbuffer offset and size, segment base offset, segment data size
constexpr uint32_t kHeaderLength = 40;
// What malloc guarantees, and what ExecuTorch's FlatTensorDataMap asks of the bytes: with it (and
// ExecuTorch's 128-byte segment alignment) every tensor is aligned for its elements.
constexpr uintptr_t kAlignment = 16;
constexpr uint32_t kVersion = 0;


// The bytes of entry `i` and, for an entry in range, the tables around it. Shared by
// load() (which checks everything) and the lookups (which trust load()).
struct EntryView {
  fb::Table entry;
  fb::String key;
  uint32_t segment = 0;
  uint64_t offset = 0;  // in the segment data
  uint64_t size = 0;
  fb::Table layout;
};

EntryView view_entry(fb::Reader& r, uint32_t i) {
  namespace ft = schema::flat_tensor;
  EntryView v;
  const fb::Table root = r.root();
  const fb::Vector entries = r.vector(root, ft::kNamedData, 4);
  v.entry = r.table_element(entries, i);
  v.key = r.string(v.entry, ft::named_data::kKey);
  v.segment = r.scalar<uint32_t>(v.entry, ft::named_data::kSegmentIndex, 0);
  v.layout = r.table(v.entry, ft::named_data::kTensorLayout);
  const fb::Vector segments = r.vector(root, ft::kSegments, 4);
  if (v.segment < segments.length) {
    const fb::Table segment = r.table_element(segments, v.segment);
    v.offset = r.scalar<uint64_t>(segment, ft::segment::kOffset, 0);
    v.size = r.scalar<uint64_t>(segment, ft::segment::kSize, 0);
  }
  return v;
}

// Entry `i`'s key, through the bounds-checked reader (load() checked every key before it sorts them).
Span<const char> entry_key(fb::Reader& r, const fb::Vector& entries, uint32_t i) {
  const fb::String key = r.string(r.table_element(entries, i), schema::flat_tensor::named_data::kKey);
  return Span<const char>(key.data, key.length);
}

// Keys ordered by their bytes (unsigned), a key before any longer key it begins.
int compare(Span<const char> a, Span<const char> b) {
  const size_t n = a.size() < b.size() ? a.size() : b.size();
  const int c = n == 0 ? 0 : memcmp(a.data(), b.data(), n);
  if (c != 0) return c;
  return a.size() < b.size() ? -1 : a.size() > b.size() ? 1 : 0;
}

// Heap sort of the entry indices by key: O(n log n) in the worst case (the file chooses the order), in place.
class KeySort {
 public:
  KeySort(fb::Reader& r, const fb::Vector& entries, uint32_t* index) : r_(r), entries_(entries), index_(index) {}

  void sort(size_t n) {
    for (size_t i = n / 2; i-- > 0;) sift_down(i, n);
    for (size_t end = n; end-- > 1;) {
      swap(0, end);
      sift_down(0, end);
    }
  }

 private:
  bool less(size_t a, size_t b) {
    return compare(entry_key(r_, entries_, index_[a]), entry_key(r_, entries_, index_[b])) < 0;
  }
  void swap(size_t a, size_t b) {
    const uint32_t t = index_[a];
    index_[a] = index_[b];
    index_[b] = t;
  }
  void sift_down(size_t root, size_t n) {
    for (size_t child; (child = 2 * root + 1) < n; root = child) {
      if (child + 1 < n && less(child, child + 1)) ++child;
      if (!less(root, child)) return;
      swap(root, child);
    }
  }

  fb::Reader& r_;
  const fb::Vector& entries_;
  uint32_t* index_;
};

}  // namespace

void format_key(char* out, size_t out_size, Span<const char> key) {
  constexpr size_t kShown = 64;
  size_t n = 0;
  for (size_t k = 0; k < key.size() && k < kShown && n + 1 < out_size; ++k) {
    const unsigned char c = static_cast<unsigned char>(key[k]);
    out[n++] = c >= 32 && c < 127 ? static_cast<char>(c) : '?';
  }
  if (key.size() > kShown && n + 4 < out_size) {
    memcpy(out + n, "...", 3);
    n += 3;
  }
  out[n] = '\0';
}

Result<DataFile> DataFile::load(const uint8_t* data, size_t size, const char* label, const RuntimeLimits& limits) {
  namespace ft = schema::flat_tensor;
  if (data == nullptr || size < kHeaderOffset + kHeaderLength) {
    return Error::make(ErrorCode::kInvalidProgram, "data file %s: %zu bytes, too small for a .ptd", label, size);
  }
  if (memcmp(data + 4, kIdentifier, 4) != 0 || memcmp(data + kHeaderOffset, kHeaderMagic, 4) != 0) {
    return Error::make(ErrorCode::kInvalidProgram,
                       "data file %s: not an ExecuTorch data file (no FlatTensor identifier '%s' and header '%s')",
                       label, kIdentifier, kHeaderMagic);
  }
  if (reinterpret_cast<uintptr_t>(data) % kAlignment != 0) {
    return Error::make(ErrorCode::kInvalidArgument, "data file %s: its bytes are not aligned to %u", label,
                       static_cast<unsigned>(kAlignment));
  }
  const uint32_t length = fb::read_unaligned<uint32_t>(data + kHeaderOffset + 4);
  const uint64_t flatbuffer_offset = fb::read_unaligned<uint64_t>(data + kHeaderOffset + 8);
  const uint64_t flatbuffer_size = fb::read_unaligned<uint64_t>(data + kHeaderOffset + 16);
  const uint64_t segment_base = fb::read_unaligned<uint64_t>(data + kHeaderOffset + 24);
  const uint64_t segment_data_size = fb::read_unaligned<uint64_t>(data + kHeaderOffset + 32);
  if (length < kHeaderLength) {
    return Error::make(ErrorCode::kInvalidProgram, "data file %s: header is %u bytes, shorter than %u", label,
                       static_cast<unsigned>(length), static_cast<unsigned>(kHeaderLength));
  }
  const uint64_t flatbuffer_end = sat_add(flatbuffer_offset, flatbuffer_size);
  if (flatbuffer_end > size) {
    return Error::make(ErrorCode::kInvalidProgram,
                       "data file %s: header says its table ends at byte %llu but the file has %zu (truncated?)",
                       label, static_cast<unsigned long long>(flatbuffer_end), size);
  }
  const uint64_t segment_end = sat_add(segment_base, segment_data_size);
  if (segment_end > size) {
    return Error::make(ErrorCode::kInvalidProgram,
                       "data file %s: header says its data ends at byte %llu but the file has %zu (truncated?)",
                       label, static_cast<unsigned long long>(segment_end), size);
  }

  DataFile file;
  file.data_ = data;
  file.size_ = size;
  file.label_ = label;
  file.flatbuffer_size_ = static_cast<size_t>(flatbuffer_end);
  file.segment_base_ = segment_base;
  fb::Reader r(data, file.flatbuffer_size_);
  const fb::Table root = r.root();
  const uint32_t version = r.scalar<uint32_t>(root, ft::kVersion, 0);
  const fb::Vector segments = r.vector(root, ft::kSegments, 4);
  const fb::Vector entries = r.vector(root, ft::kNamedData, 4);
  if (r.failed() || !root.present) {
    return Error::make(ErrorCode::kInvalidProgram, "data file %s: its table is out of bounds (truncated or corrupt)",
                       label);
  }
  if (version > kVersion) {
    return Error::make(ErrorCode::kNotSupported, "data file %s: FlatTensor version %u, newer than this runtime reads (%u)",
                       label, static_cast<unsigned>(version), static_cast<unsigned>(kVersion));
  }
  for (uint32_t s = 0; s < segments.length; ++s) {
    const fb::Table segment = r.table_element(segments, s);
    const uint64_t offset = r.scalar<uint64_t>(segment, ft::segment::kOffset, 0);
    const uint64_t bytes = r.scalar<uint64_t>(segment, ft::segment::kSize, 0);
    if (r.failed()) {
      return Error::make(ErrorCode::kInvalidProgram, "data file %s: segment %u is out of bounds", label,
                         static_cast<unsigned>(s));
    }
    if (sat_add(offset, bytes) > segment_data_size) {
      return Error::make(ErrorCode::kInvalidProgram,
                         "data file %s: segment %u (%llu bytes at offset %llu) lies past the end of its %llu bytes of "
                         "data (truncated?)",
                         label, static_cast<unsigned>(s), static_cast<unsigned long long>(bytes),
                         static_cast<unsigned long long>(offset),
                         static_cast<unsigned long long>(segment_data_size));
    }
  }
  for (uint32_t i = 0; i < entries.length; ++i) {
    const EntryView v = view_entry(r, i);
    if (r.failed() || !v.entry.present || v.key.data == nullptr) {
      return Error::make(ErrorCode::kInvalidProgram, "data file %s: entry %u is out of bounds", label,
                         static_cast<unsigned>(i));
    }
    char key[80];
    format_key(key, sizeof key, Span<const char>(v.key.data, v.key.length));
    if (v.segment >= segments.length) {
      return Error::make(ErrorCode::kInvalidProgram, "data file %s: '%s' names segment %u of %u", label, key,
                         static_cast<unsigned>(v.segment), static_cast<unsigned>(segments.length));
    }
    if (!v.layout.present) continue;
    const int8_t dtype = r.scalar<int8_t>(v.layout, ft::tensor_layout::kScalarType, 0);
    const fb::Vector sizes = r.vector(v.layout, ft::tensor_layout::kSizes, 4);
    const fb::Vector dim_order = r.vector(v.layout, ft::tensor_layout::kDimOrder, 1);
    if (r.failed()) return Error::make(ErrorCode::kInvalidProgram, "data file %s: '%s' has its layout out of bounds", label, key);
    if (sizes.length > static_cast<uint32_t>(kMaxDims) || dim_order.length != sizes.length) {
      return Error::make(ErrorCode::kInvalidProgram, "data file %s: '%s' has %u sizes and %u dim order entries", label,
                         key, static_cast<unsigned>(sizes.length), static_cast<unsigned>(dim_order.length));
    }
    DataEntry e = file.entry(i);
    if (element_size(static_cast<ScalarType>(dtype)) == 0 || !is_dim_order(e.dim_order, e.dim)) {
      return Error::make(ErrorCode::kInvalidProgram, "data file %s: '%s' has dtype %d or a dim order this runtime does not take",
                         label, key, static_cast<int>(dtype));
    }
    const uint64_t numel = shape_numel(e.sizes, e.dim);
    const uint64_t nbytes = sat_mul(numel, element_size(e.dtype));
    if (numel == kSaturated || nbytes > v.size) {
      return Error::make(ErrorCode::kInvalidProgram, "data file %s: '%s' is a %s tensor of %llu bytes in a %llu-byte segment",
                         label, key, scalar_type_name(e.dtype), static_cast<unsigned long long>(nbytes),
                         static_cast<unsigned long long>(v.size));
    }
  }
  // The key index. Every entry is a 4-byte offset in the flatbuffer, so it is at most the flatbuffer's size.
  const uint64_t index_bytes = uint64_t{entries.length} * sizeof(uint32_t);
  if (index_bytes > limits.memory_bytes) {
    return Error::make(ErrorCode::kMemoryBudget,
                       "data file %s: the index of its %u keys needs %llu bytes, over the memory budget of %llu bytes",
                       label, static_cast<unsigned>(entries.length), static_cast<unsigned long long>(index_bytes),
                       static_cast<unsigned long long>(limits.memory_bytes));
  }
  if (entries.length > 0) {
    file.index_ = static_cast<uint32_t*>(malloc(static_cast<size_t>(index_bytes)));
    if (file.index_ == nullptr) {
      return Error::make(ErrorCode::kOutOfMemory, "data file %s: out of memory for the index of its %u keys", label,
                         static_cast<unsigned>(entries.length));
    }
  }
  for (uint32_t i = 0; i < entries.length; ++i) file.index_[i] = i;
  KeySort(r, entries, file.index_).sort(entries.length);
  for (uint32_t i = 1; i < entries.length; ++i) {
    const Span<const char> key = entry_key(r, entries, file.index_[i]);
    if (compare(entry_key(r, entries, file.index_[i - 1]), key) == 0) {
      // ExecuTorch's FlatTensorDataMap would take the first; which one the exporter meant is unknowable.
      char shown[80];
      format_key(shown, sizeof shown, key);
      return Error::make(ErrorCode::kInvalidProgram, "data file %s: two entries have the key '%s'", label, shown);
    }
  }
  file.num_entries_ = entries.length;
  return static_cast<DataFile&&>(file);
}

DataFile::~DataFile() { free(index_); }

DataFile::DataFile(DataFile&& other) noexcept { *this = static_cast<DataFile&&>(other); }

DataFile& DataFile::operator=(DataFile&& other) noexcept {
  if (this == &other) return *this;
  free(index_);
  data_ = other.data_;
  size_ = other.size_;
  label_ = other.label_;
  flatbuffer_size_ = other.flatbuffer_size_;
  segment_base_ = other.segment_base_;
  num_entries_ = other.num_entries_;
  index_ = other.index_;
  other.num_entries_ = 0;
  other.index_ = nullptr;
  return *this;
}

Span<const char> DataFile::key(size_t i) const {
  fb::Reader r(data_, flatbuffer_size_);
  return entry_key(r, r.vector(r.root(), schema::flat_tensor::kNamedData, 4), static_cast<uint32_t>(i));
}

DataEntry DataFile::entry(size_t i) const {
  namespace ft = schema::flat_tensor;
  fb::Reader r(data_, flatbuffer_size_);
  const EntryView v = view_entry(r, static_cast<uint32_t>(i));
  DataEntry e;
  e.bytes = Span<const uint8_t>(data_ + segment_base_ + v.offset, static_cast<size_t>(v.size));
  if (!v.layout.present) return e;
  const fb::Vector sizes = r.vector(v.layout, ft::tensor_layout::kSizes, 4);
  const fb::Vector dim_order = r.vector(v.layout, ft::tensor_layout::kDimOrder, 1);
  e.has_layout = true;
  e.dtype = static_cast<ScalarType>(r.scalar<int8_t>(v.layout, ft::tensor_layout::kScalarType, 0));
  e.dim = static_cast<int32_t>(sizes.length < static_cast<uint32_t>(kMaxDims) ? sizes.length : kMaxDims);
  for (int32_t d = 0; d < e.dim; ++d) {
    e.sizes[d] = r.element<int32_t>(sizes, static_cast<uint32_t>(d));
    e.dim_order[d] = d < static_cast<int32_t>(dim_order.length) ? r.element<uint8_t>(dim_order, static_cast<uint32_t>(d)) : 0;
  }
  return e;
}

int64_t DataFile::find(Span<const char> key) const {
  fb::Reader r(data_, flatbuffer_size_);
  const fb::Vector entries = r.vector(r.root(), schema::flat_tensor::kNamedData, 4);
  size_t low = 0;
  size_t high = num_entries_;
  while (low < high) {
    const size_t mid = low + (high - low) / 2;
    const int c = compare(entry_key(r, entries, index_[mid]), key);
    if (c == 0) return index_[mid];
    if (c < 0) {
      low = mid + 1;
    } else {
      high = mid;
    }
  }
  return -1;
}

bool DataFile::holds(const void* p) const {
  const auto* bytes = static_cast<const uint8_t*>(p);
  return bytes != nullptr && data_ != nullptr && bytes >= data_ && bytes < data_ + size_;
}

}  // namespace sb
