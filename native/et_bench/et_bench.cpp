// et_bench: latency of one .pte method on ExecuTorch's own C++ runtime (the executorch wheel's
// libexecutorch.so plus a kernel library or the XNNPACK delegate), measured the way our
// executor_runner --repeat measures ours: one warm-up execute, then N iterations of
// (set every input, execute), each timed with steady_clock; the median is reported.
//
// usage: et_bench_<variant> --model M.pte [--input x.npy ...] [--method forward]
//                           [--repeat N] [--threads T] [--output-dir D]
// Prints one JSON object on stdout. --output-dir writes each tensor output, after the timed runs, as
// D/output<i>.npy (as our executor_runner does), so a benchmark can check what it timed. Inputs without an --input file are filled with a fixed
// pseudo-random pattern (floats in [-1, 1), integers 0..7, bools alternating).
//
// Threads: ExecuTorch's optimized kernels and the XNNPACK delegate share the pool that
// executorch::extension::threadpool::get_threadpool() creates on first use, sized to the
// machine's performant cores. --threads (default 1) resets it before the program is loaded;
// the JSON reports the pool's thread count and the process's thread count (/proc/self/status)
// after the timed runs, so a pool that did not shrink is visible.
#include <executorch/extension/data_loader/file_data_loader.h>
#include <executorch/extension/memory_allocator/malloc_memory_allocator.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/hierarchical_allocator.h>
#include <executorch/runtime/executor/memory_manager.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>
#include <executorch/runtime/platform/runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

// The wheel ships libexecutorch_threadpool.so but not threadpool.h; these declarations match the
// symbols it exports (extension/threadpool/threadpool.h in ExecuTorch's source).
namespace executorch::extension::threadpool {
class ThreadPool {
 public:
  size_t get_thread_count() const;
  bool _unsafe_reset_threadpool(uint32_t num_threads);
};
ThreadPool* get_threadpool();
}  // namespace executorch::extension::threadpool

namespace {

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::HierarchicalAllocator;
using executorch::runtime::MemoryManager;
using executorch::runtime::Method;
using executorch::runtime::MethodMeta;
using executorch::runtime::Program;
using executorch::runtime::Span;
using executorch::runtime::Tag;

using Clock = std::chrono::steady_clock;

int fail(const std::string& msg) {
  fprintf(stderr, "et_bench: %s\n", msg.c_str());
  return 1;
}

int process_threads() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Threads:", 0) == 0) return atoi(line.c_str() + 8);
  }
  return -1;
}

struct Npy {
  std::string descr;
  std::vector<int32_t> shape;
  std::vector<char> data;
};

// Minimal .npy reader: versions 1-3, C order, little-endian or byte-sized dtypes.
bool read_npy(const std::string& path, Npy* out, std::string* why) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return *why = "cannot open " + path, false;
  char magic[8];
  if (!f.read(magic, 8) || memcmp(magic, "\x93NUMPY", 6) != 0) return *why = path + ": not a .npy file", false;
  uint32_t header_len = 0;
  if (magic[6] == 1) {
    unsigned char b[2];
    if (!f.read(reinterpret_cast<char*>(b), 2)) return *why = path + ": truncated header", false;
    header_len = b[0] | (b[1] << 8);
  } else {
    unsigned char b[4];
    if (!f.read(reinterpret_cast<char*>(b), 4)) return *why = path + ": truncated header", false;
    header_len = b[0] | (b[1] << 8) | (b[2] << 16) | (static_cast<uint32_t>(b[3]) << 24);
  }
  std::string header(header_len, '\0');
  if (!f.read(&header[0], header_len)) return *why = path + ": truncated header", false;
  if (header.find("'fortran_order': False") == std::string::npos) return *why = path + ": not C order", false;
  const size_t d = header.find("'descr': '");
  if (d == std::string::npos) return *why = path + ": no descr", false;
  out->descr = header.substr(d + 10, header.find('\'', d + 10) - (d + 10));
  const size_t s = header.find("'shape': (");
  if (s == std::string::npos) return *why = path + ": no shape", false;
  const std::string dims = header.substr(s + 10, header.find(')', s + 10) - (s + 10));
  out->shape.clear();
  for (size_t i = 0; i < dims.size();) {
    if (dims[i] >= '0' && dims[i] <= '9') {
      char* end = nullptr;
      out->shape.push_back(static_cast<int32_t>(strtol(dims.c_str() + i, &end, 10)));
      i = static_cast<size_t>(end - dims.c_str());
    } else {
      ++i;
    }
  }
  out->data.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return true;
}

const struct NpyType {
  const char* descr;
  ScalarType type;
} kNpyTypes[] = {{"<f4", ScalarType::Float}, {"<f8", ScalarType::Double}, {"<f2", ScalarType::Half},
                 {"<i8", ScalarType::Long},  {"<i4", ScalarType::Int},    {"<i2", ScalarType::Short},
                 {"|i1", ScalarType::Char},  {"|u1", ScalarType::Byte},   {"|b1", ScalarType::Bool}};

bool npy_type(const std::string& descr, ScalarType* type) {
  for (const auto& row : kNpyTypes) {
    if (descr == row.descr) return *type = row.type, true;
  }
  return false;
}

// Writes a contiguous tensor as a version-1 .npy file.
bool write_npy(const std::string& path, const Tensor& t, std::string* why) {
  const char* descr = nullptr;
  for (const auto& row : kNpyTypes) {
    if (row.type == t.scalar_type()) descr = row.descr;
  }
  if (descr == nullptr) return *why = path + ": no .npy dtype for this output", false;
  for (size_t d = 0; d < t.dim_order().size(); ++d) {
    if (t.dim_order()[d] != d) return *why = path + ": output has a non-contiguous dim order", false;
  }
  std::string shape = "(";
  for (size_t d = 0; d < t.sizes().size(); ++d) shape += (d ? ", " : "") + std::to_string(t.sizes()[d]);
  shape += t.sizes().size() == 1 ? ",)" : ")";  // a 1-tuple needs its comma
  std::string header = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::ofstream f(path, std::ios::binary);
  if (!f) return *why = "cannot write " + path, false;
  const unsigned char preamble[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                                      static_cast<unsigned char>(header.size() & 0xff),
                                      static_cast<unsigned char>(header.size() >> 8)};
  f.write(reinterpret_cast<const char*>(preamble), sizeof preamble);
  f.write(header.data(), static_cast<std::streamsize>(header.size()));
  f.write(static_cast<const char*>(t.const_data_ptr()), static_cast<std::streamsize>(t.nbytes()));
  if (!f) return *why = "cannot write " + path, false;
  return true;
}

size_t element_size(ScalarType t) {
  switch (t) {
    case ScalarType::Double:
    case ScalarType::Long:
      return 8;
    case ScalarType::Float:
    case ScalarType::Int:
      return 4;
    case ScalarType::Half:
    case ScalarType::Short:
    case ScalarType::BFloat16:
      return 2;
    default:
      return 1;
  }
}

void fill_pattern(ScalarType t, char* data, size_t n) {
  uint32_t state = 12345u;
  for (size_t i = 0; i < n; ++i) {
    state = state * 1664525u + 1013904223u;
    const float u = static_cast<float>(state >> 8) / 16777216.0f * 2.0f - 1.0f;
    switch (t) {
      case ScalarType::Float:
        reinterpret_cast<float*>(data)[i] = u;
        break;
      case ScalarType::Double:
        reinterpret_cast<double*>(data)[i] = u;
        break;
      case ScalarType::Long:
        reinterpret_cast<int64_t*>(data)[i] = (state >> 16) % 8;
        break;
      case ScalarType::Int:
        reinterpret_cast<int32_t*>(data)[i] = (state >> 16) % 8;
        break;
      case ScalarType::Bool:
        reinterpret_cast<bool*>(data)[i] = (i % 2) != 0;
        break;
      default:
        memset(data + i * element_size(t), 0, element_size(t));
    }
  }
}

// One input tensor the benchmark owns: data, shape and the TensorImpl that views them.
struct Input {
  std::vector<char> data;
  std::vector<int32_t> sizes;
  std::vector<uint8_t> dim_order;
  std::vector<int32_t> strides;
  std::unique_ptr<TensorImpl> impl;
};

}  // namespace

int main(int argc, char** argv) {
  std::string model;
  std::string method_name = "forward";
  std::vector<std::string> input_paths;
  int repeat = 30;
  int threads = 1;
  std::string output_dir;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--model" && has_value) {
      model = argv[++i];
    } else if (arg == "--input" && has_value) {
      input_paths.push_back(argv[++i]);
    } else if (arg == "--method" && has_value) {
      method_name = argv[++i];
    } else if (arg == "--repeat" && has_value) {
      repeat = atoi(argv[++i]);
    } else if (arg == "--threads" && has_value) {
      threads = atoi(argv[++i]);
    } else if (arg == "--output-dir" && has_value) {
      output_dir = argv[++i];
    } else {
      return fail(
          "usage: et_bench --model M.pte [--input x.npy ...] [--method forward] [--repeat N] [--threads T] "
          "[--output-dir D]");
    }
  }
  if (model.empty() || repeat <= 0 || threads <= 0) return fail("--model is required; --repeat, --threads > 0");

  executorch::runtime::runtime_init();
  auto* pool = executorch::extension::threadpool::get_threadpool();
  if (pool == nullptr) return fail("get_threadpool() returned null");
  if (!pool->_unsafe_reset_threadpool(static_cast<uint32_t>(threads))) return fail("could not resize the thread pool");

  const auto load_start = Clock::now();
  auto loader = executorch::extension::FileDataLoader::from(model.c_str());
  if (!loader.ok()) return fail("cannot open " + model);
  auto program = Program::load(&loader.get(), Program::Verification::Minimal);
  if (!program.ok()) return fail("Program::load failed on " + model);
  auto meta = program->method_meta(method_name.c_str());
  if (!meta.ok()) return fail("no method " + method_name);

  std::vector<std::vector<uint8_t>> planned_buffers;
  std::vector<Span<uint8_t>> planned_spans;
  for (size_t i = 0; i < meta->num_memory_planned_buffers(); ++i) {
    const auto size = meta->memory_planned_buffer_size(i);
    if (!size.ok()) return fail("bad planned buffer");
    planned_buffers.emplace_back(static_cast<size_t>(size.get()));
  }
  for (auto& buffer : planned_buffers) planned_spans.emplace_back(buffer.data(), buffer.size());
  HierarchicalAllocator planned({planned_spans.data(), planned_spans.size()});
  executorch::extension::MallocMemoryAllocator method_allocator;
  executorch::extension::MallocMemoryAllocator temp_allocator;
  MemoryManager memory_manager(&method_allocator, &planned, &temp_allocator);
  auto method = program->load_method(method_name.c_str(), &memory_manager);
  if (!method.ok()) return fail("load_method failed (missing kernel or backend?)");
  const double load_us = std::chrono::duration<double, std::micro>(Clock::now() - load_start).count();

  std::vector<Input> inputs(method->inputs_size());
  std::vector<EValue> values;
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto tag = meta->input_tag(i);
    if (!tag.ok() || tag.get() != Tag::Tensor) return fail("input " + std::to_string(i) + " is not a tensor");
    auto info = meta->input_tensor_meta(i);
    if (!info.ok()) return fail("no tensor meta for input " + std::to_string(i));
    Input& in = inputs[i];
    ScalarType type = info->scalar_type();
    in.dim_order.assign(info->dim_order().begin(), info->dim_order().end());
    for (size_t d = 0; d < in.dim_order.size(); ++d) {
      if (in.dim_order[d] != d) return fail("input " + std::to_string(i) + " has a non-contiguous dim order");
    }
    if (i < input_paths.size()) {
      Npy npy;
      std::string why;
      if (!read_npy(input_paths[i], &npy, &why)) return fail(why);
      ScalarType file_type;
      if (!npy_type(npy.descr, &file_type) || file_type != type) {
        return fail(input_paths[i] + ": dtype " + npy.descr + " does not match the program's input");
      }
      if (npy.shape.size() != in.dim_order.size()) return fail(input_paths[i] + ": rank differs from the program's");
      in.sizes = npy.shape;
      in.data = std::move(npy.data);
    } else {
      in.sizes.assign(info->sizes().begin(), info->sizes().end());
    }
    size_t numel = 1;
    for (int32_t s : in.sizes) numel *= static_cast<size_t>(s);
    if (i >= input_paths.size()) {
      in.data.resize(numel * element_size(type));
      fill_pattern(type, in.data.data(), numel);
    } else if (in.data.size() < numel * element_size(type)) {
      return fail(input_paths[i] + ": fewer bytes than its shape needs");
    }
    in.strides.resize(in.sizes.size());
    int32_t stride = 1;
    for (size_t d = in.sizes.size(); d-- > 0;) {
      in.strides[d] = stride;
      stride *= in.sizes[d];
    }
    in.impl = std::make_unique<TensorImpl>(type, static_cast<ssize_t>(in.sizes.size()), in.sizes.data(),
                                           in.data.data(), in.dim_order.data(), in.strides.data(),
                                           executorch::runtime::TensorShapeDynamism::STATIC);
    values.emplace_back(Tensor(in.impl.get()));
  }

  auto set_inputs = [&]() -> Error {
    for (size_t i = 0; i < values.size(); ++i) {
      const Error err = method->set_input(values[i], i);
      if (err != Error::Ok) return err;
    }
    return Error::Ok;
  };

  if (set_inputs() != Error::Ok || method->execute() != Error::Ok) return fail("warm-up execute failed");
  std::vector<double> us;
  us.reserve(static_cast<size_t>(repeat));
  for (int k = 0; k < repeat; ++k) {
    const auto start = Clock::now();
    if (set_inputs() != Error::Ok || method->execute() != Error::Ok) return fail("execute failed");
    us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - start).count());
  }
  std::sort(us.begin(), us.end());
  for (size_t i = 0; !output_dir.empty() && i < method->outputs_size(); ++i) {
    const EValue& out = method->get_output(i);
    if (!out.isTensor()) continue;
    std::string why;
    if (!write_npy(output_dir + "/output" + std::to_string(i) + ".npy", out.toTensor(), &why)) return fail(why);
  }
  printf(
      "{\"model\": \"%s\", \"method\": \"%s\", \"repeat\": %d, \"median_us\": %.3f, \"min_us\": %.3f, "
      "\"max_us\": %.3f, \"load_us\": %.3f, \"pool_threads\": %zu, \"process_threads\": %d}\n",
      model.c_str(), method_name.c_str(), repeat, us[us.size() / 2], us.front(), us.back(), load_us,
      pool->get_thread_count(), process_threads());
  return 0;
}
