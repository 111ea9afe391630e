#include "npy.h"

#include <cstdio>
#include <cstring>
#include <utility>

#include "atomic_file.h"
#include "regular_file.h"
#include "sb/checked.h"

namespace sb::runner {
namespace {

constexpr char kMagic[] = "\x93NUMPY";

struct DtypeCode {
  const char* descr;
  ScalarType type;
};
constexpr DtypeCode kCodes[] = {
    {"<f4", ScalarType::kFloat}, {"<f8", ScalarType::kDouble}, {"<i8", ScalarType::kLong},
    {"<i4", ScalarType::kInt},   {"<i2", ScalarType::kShort},  {"|i1", ScalarType::kChar},
    {"|u1", ScalarType::kByte},  {"|b1", ScalarType::kBool},   {"<f2", ScalarType::kHalf},
    {"<c8", ScalarType::kComplexFloat}, {"<c16", ScalarType::kComplexDouble},
};

Error bad(const std::string& path, const char* why) {
  return Error::make(ErrorCode::kInvalidArgument, "%s: not a usable .npy file: %s", path.c_str(), why);
}

// Value text following `'key':` in the header dict, or npos.
size_t find_key(const std::string& header, const char* key) {
  const std::string quoted = std::string("'") + key + "'";
  size_t at = header.find(quoted);
  if (at == std::string::npos) return at;
  at = header.find(':', at + quoted.size());
  if (at == std::string::npos) return at;
  return header.find_first_not_of(' ', at + 1);
}

}  // namespace

Error read_npy(const std::string& path, NpyArray* out) {
  std::vector<uint8_t> file;
  Error err = read_regular_file(path, "input", &file);
  if (!err.ok()) return err;

  if (file.size() < 10 || memcmp(file.data(), kMagic, 6) != 0) return bad(path, "missing NUMPY magic");
  const uint8_t major = file[6];
  size_t header_len = 0;
  size_t header_start = 0;
  if (major == 1) {
    header_len = file[8] | (file[9] << 8);
    header_start = 10;
  } else if (major == 2 || major == 3) {
    if (file.size() < 12) return bad(path, "truncated header");
    header_len = file[8] | (file[9] << 8) | (file[10] << 16) | (static_cast<size_t>(file[11]) << 24);
    header_start = 12;
  } else {
    return bad(path, "unknown format version");
  }
  if (sat_add(header_start, header_len) > file.size()) return bad(path, "truncated header");
  const std::string header(reinterpret_cast<const char*>(file.data() + header_start), header_len);

  const size_t descr_at = find_key(header, "descr");
  if (descr_at == std::string::npos || descr_at + 5 > header.size()) return bad(path, "no descr");
  const size_t descr_end = header.find_first_of("'\"", descr_at + 1);
  if (descr_end == std::string::npos) return bad(path, "malformed descr");
  const std::string descr = header.substr(descr_at + 1, descr_end - descr_at - 1);
  const DtypeCode* code = nullptr;
  for (const DtypeCode& c : kCodes) {
    if (descr == c.descr || (descr[0] == '|' && descr.substr(1) == std::string(c.descr).substr(1))) code = &c;
  }
  if (code == nullptr) {
    return bad(path,
               "unsupported dtype (use float16, float32, float64, complex64, complex128, int64, int32, int16, int8, "
               "uint8 or bool)");
  }

  const size_t order_at = find_key(header, "fortran_order");
  if (order_at == std::string::npos || header.compare(order_at, 5, "False") != 0) {
    return bad(path, "Fortran-ordered arrays are not supported");
  }

  const size_t shape_at = find_key(header, "shape");
  if (shape_at == std::string::npos || header[shape_at] != '(') return bad(path, "no shape");
  const size_t shape_end = header.find(')', shape_at);
  if (shape_end == std::string::npos) return bad(path, "malformed shape");
  Tensor& t = out->tensor;
  t = Tensor();
  t.dtype = code->type;
  const char* p = header.c_str() + shape_at + 1;
  const char* end = header.c_str() + shape_end;
  while (p < end) {
    while (p < end && (*p == ' ' || *p == ',')) ++p;
    if (p >= end) break;
    char* after = nullptr;
    const long long dim = strtoll(p, &after, 10);
    if (after == p || dim < 0) return bad(path, "malformed shape");
    if (t.dim == kMaxDims) return bad(path, "too many dimensions");
    t.sizes[t.dim++] = dim;
    p = after;
  }

  const uint64_t numel = shape_numel(t.sizes, t.dim);
  if (numel == kSaturated) return bad(path, "shape is impossibly large");
  const size_t data_start = header_start + header_len;
  if (file.size() - data_start != sat_mul(numel, element_size(t.dtype))) {
    return bad(path, "data size does not match its shape");
  }
  out->bytes.assign(file.begin() + static_cast<std::ptrdiff_t>(data_start), file.end());
  t.data = out->bytes.data();
  return Error();
}

Error adapt_npy_input(const std::string& path, ScalarType expected, NpyArray* array) {
  Tensor& t = array->tensor;
  if (expected == ScalarType::kComplexHalf && t.dtype == ScalarType::kHalf) {
    // NumPy has no complex32: float16 (re, im) pairs in a last dim of 2, the same bytes.
    if (t.dim < 1 || t.sizes[t.dim - 1] != 2) {
      return Error::make(ErrorCode::kInvalidArgument,
                         "%s: a complex32 input is given as float16 with a last dim of 2 (re, im)", path.c_str());
    }
    --t.dim;
    t.dtype = ScalarType::kComplexHalf;
    return Error();
  }
  if (expected != ScalarType::kBFloat16 || t.dtype != ScalarType::kFloat) return Error();
  const int64_t n = t.numel();
  std::vector<uint8_t> narrowed(static_cast<size_t>(n) * sizeof(BFloat16));
  for (int64_t i = 0; i < n; ++i) {
    float v;
    memcpy(&v, array->bytes.data() + i * sizeof(float), sizeof v);
    const BFloat16 b(v);
    // Exact values only (NaN stays NaN): a rounded input would not be the one given.
    if (static_cast<float>(b) != v && v == v) {
      return Error::make(ErrorCode::kInvalidArgument,
                         "%s: element %lld (%.9g) is not exactly representable in bfloat16", path.c_str(),
                         static_cast<long long>(i), static_cast<double>(v));
    }
    memcpy(narrowed.data() + i * sizeof(BFloat16), &b, sizeof b);
  }
  array->bytes = std::move(narrowed);
  t.dtype = ScalarType::kBFloat16;
  t.data = array->bytes.data();
  return Error();
}

Error write_npy(const std::string& path, const Tensor& tensor) {
  if (tensor.dtype == ScalarType::kBFloat16) {
    // Written as float32, exactly.
    const int64_t n = tensor.numel();
    std::vector<float> wide(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) wide[static_cast<size_t>(i)] = tensor.data_as<BFloat16>()[i];
    Tensor as_float = tensor;
    as_float.dtype = ScalarType::kFloat;
    as_float.data = wide.data();
    return write_npy(path, as_float);
  }
  if (tensor.dtype == ScalarType::kComplexHalf) {
    // Written as float16 (re, im) pairs in an added last dim of 2, the same bytes.
    if (tensor.dim >= kMaxDims) {
      return Error::make(ErrorCode::kNotSupported, "cannot write a %d-dim complex32 tensor to .npy", tensor.dim);
    }
    Tensor pairs = tensor;
    pairs.dtype = ScalarType::kHalf;
    pairs.sizes[pairs.dim++] = 2;
    return write_npy(path, pairs);
  }
  const char* descr = nullptr;
  for (const DtypeCode& c : kCodes) {
    if (c.type == tensor.dtype) descr = c.descr;
  }
  if (descr == nullptr) return Error::make(ErrorCode::kNotSupported, "cannot write dtype %s to .npy", scalar_type_name(tensor.dtype));

  std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': (";
  for (int32_t i = 0; i < tensor.dim; ++i) header += std::to_string(tensor.sizes[i]) + (tensor.dim == 1 ? "," : i + 1 < tensor.dim ? ", " : "");
  header += "), }";
  // Pad so the data starts on a 64-byte boundary, newline-terminated.
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';

  const char preamble[10] = {'\x93', 'N', 'U', 'M', 'P', 'Y', 1, 0, static_cast<char>(header.size() & 0xff),
                             static_cast<char>(header.size() >> 8)};
  return write_file_atomic(path, {std::string_view(preamble, sizeof preamble), header,
                                  std::string_view(static_cast<const char*>(tensor.data), tensor.nbytes())});
}

}  // namespace sb::runner
