// executor_runner: loads a .pte, feeds it inputs, runs it and writes outputs.
//
//   executor_runner --model M.pte [--data W.ptd ...] [--input x.npy ...] [--output-dir D]
//                   [--method forward] [--steps N] [--repeat N] [--trace-out T]
//                   [--max-memory BYTES] [--max-work BYTES] [--max-seconds S] [--threads N]
//   executor_runner --list-kernels
//
// --data names a .ptd file (ExecuTorch's FlatTensor format) holding data the
// program keeps outside the .pte: external constants and delegate weights,
// found by key in every file given.
//
// --steps N executes the loaded method N times, as a decode loop does: its
// mutable state (KV caches, running sums) carries over from one step to the
// next. Inputs are then either one file per input, fed to every step, or one
// per input per step (step 0's, then step 1's, ...). Each step's outputs go to
// D/step<k>/output<i>.npy; with one step, to D/output<i>.npy.
//
// --trace-out (tracing builds only) writes every operator the run invoked,
// root or reached through the dispatcher, with the dtypes it saw.
// --list-kernels prints each registered op and the ops it declares it may
// call: "<op>\t<callee>,<callee>" (the prim ops too: kernels/prim, as selected).
//
// Without --input, each input is a deterministic generated tensor of the
// program's input shape. Outputs are written as D/output<i>.npy. Any error
// prints one line to stderr and exits non-zero.
//
// The program is untrusted: --max-memory bounds what loading it allocates,
// --max-work the work of each run (bytes its instructions touch), and
// --max-seconds the wall time of all runs together, checked between
// instructions. Defaults: sb::RuntimeLimits, no time limit. After the runs it
// prints "memory_bytes N" and "work_bytes N" (the last run's).
//
// --threads N (default 1) runs the kernels on N threads: this one and N - 1
// workers of a pool started before the program loads (sb/thread_pool.h).
// Outputs are identical whatever N is.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <sys/stat.h>

#include "npy.h"
#include "regular_file.h"
#include "sb/checked.h"
#include "sb/data_file.h"
#include "sb/limits.h"
#include "sb/method.h"
#include "sb/program.h"
#include "sb/registry.h"
#include "sb/thread_pool.h"
#if SB_TRACING
#include "trace_recorder.h"
#endif

// Whether the core reads .ptd files (native/core/src/features.h): the runner
// is told too, so that --data on a runtime without them is refused up front.
#ifndef SB_EXTERNAL_DATA
#define SB_EXTERNAL_DATA 1
#endif

namespace {

using sb::Error;
using sb::ErrorCode;

constexpr int kExitUsage = 2;
constexpr int kExitFailure = 1;
constexpr uint64_t kMaxSteps = 1000000;
// More threads than any phone or desktop has cores only oversubscribes them.
constexpr uint64_t kMaxThreads = 256;

struct Options {
  std::string model;
  std::string method = "forward";
  std::vector<std::string> data_files;
  std::vector<std::string> inputs;
  std::string output_dir;
  std::string trace_out;
  int repeat = 0;
  uint64_t steps = 1;
  bool list_kernels = false;
  sb::RuntimeLimits limits;
  double max_seconds = 0;  // 0: no time limit
  uint64_t threads = 1;
  std::string bad_value;  // the one-line error of a flag's bad value (else the usage is printed)
};

const char kUsage[] =
    "usage: executor_runner --model M.pte [--data W.ptd ...] [--input x.npy ...] [--output-dir D] [--method NAME]"
    " [--steps N] [--repeat N]\n                       [--trace-out FILE] [--max-memory BYTES] [--max-work BYTES]"
    " [--max-seconds S] [--threads N]\n"
    "       executor_runner --list-kernels";

// A whole decimal number, nothing else.
bool parse_u64(const char* text, uint64_t* out) {
  if (*text < '0' || *text > '9') return false;
  uint64_t v = 0;
  for (const char* p = text; *p; ++p) {
    if (*p < '0' || *p > '9') return false;
    v = sb::sat_add(sb::sat_mul(v, 10), static_cast<uint64_t>(*p - '0'));
  }
  if (v == sb::kSaturated) return false;
  *out = v;
  return true;
}

bool parse_seconds(const char* text, double* out) {
  char* end = nullptr;
  const double v = strtod(text, &end);
  if (end == text || *end != '\0' || !(v > 0) || v > 1e9) return false;
  *out = v;
  return true;
}

bool parse_args(int argc, char** argv, Options* opt) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--model" && has_value) {
      opt->model = argv[++i];
    } else if (arg == "--data" && has_value) {
      opt->data_files.push_back(argv[++i]);
    } else if (arg == "--steps" && has_value) {
      if (!parse_u64(argv[++i], &opt->steps) || opt->steps == 0 || opt->steps > kMaxSteps) return false;
    } else if (arg == "--input" && has_value) {
      opt->inputs.push_back(argv[++i]);
    } else if (arg == "--output-dir" && has_value) {
      opt->output_dir = argv[++i];
    } else if (arg == "--method" && has_value) {
      opt->method = argv[++i];
    } else if (arg == "--list-kernels") {
      opt->list_kernels = true;
    } else if (arg == "--trace-out" && has_value) {
      opt->trace_out = argv[++i];
    } else if (arg == "--repeat" && has_value) {
      opt->repeat = atoi(argv[++i]);
    } else if (arg == "--max-memory" && has_value) {
      if (!parse_u64(argv[++i], &opt->limits.memory_bytes)) return false;
    } else if (arg == "--max-work" && has_value) {
      if (!parse_u64(argv[++i], &opt->limits.work_bytes)) return false;
    } else if (arg == "--max-seconds" && has_value) {
      if (!parse_seconds(argv[++i], &opt->max_seconds)) return false;
    } else if (arg == "--threads" && has_value) {
      const char* text = argv[++i];
      if (!parse_u64(text, &opt->threads) || opt->threads == 0 || opt->threads > kMaxThreads) {
        opt->bad_value = "--threads takes a whole number of threads from 1 to " + std::to_string(kMaxThreads) +
                         ", not '" + text + "'";
        return false;
      }
#if !SB_THREADS
      if (opt->threads > 1) {
        opt->bad_value = "--threads " + std::string(text) + ": this runtime is built without threads (SB_THREADS=OFF)";
        return false;
      }
#endif
    } else {
      return false;
    }
  }
  return (!opt->model.empty() || opt->list_kernels) && opt->repeat >= 0;
}

std::string stem(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  const size_t dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(0, dot);
}

// Deterministic stand-in input: floats in [-1, 1), small non-negative ints
// (valid token ids for any embedding), and false for bools (no masking).
void fill_generated(sb::Tensor* t, uint32_t seed) {
  uint32_t state = 0x9E3779B9u ^ seed;
  auto next = [&state]() {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
  };
  const int64_t n = t->numel();
  for (int64_t i = 0; i < n; ++i) {
    switch (t->dtype) {
      case sb::ScalarType::kFloat: t->data_as<float>()[i] = static_cast<float>(next()) / 8388608.0f - 1.0f; break;
      case sb::ScalarType::kDouble: t->data_as<double>()[i] = static_cast<double>(next()) / 8388608.0 - 1.0; break;
      case sb::ScalarType::kLong: t->data_as<int64_t>()[i] = next() % 4; break;
      case sb::ScalarType::kInt: t->data_as<int32_t>()[i] = static_cast<int32_t>(next() % 4); break;
      case sb::ScalarType::kBool: t->data_as<bool>()[i] = false; break;
      case sb::ScalarType::kHalf: t->data_as<sb::Half>()[i] = static_cast<float>(next()) / 8388608.0f - 1.0f; break;
      case sb::ScalarType::kBFloat16:
        t->data_as<sb::BFloat16>()[i] = static_cast<float>(next()) / 8388608.0f - 1.0f;
        break;
      case sb::ScalarType::kShort: t->data_as<int16_t>()[i] = static_cast<int16_t>(next() % 4); break;
      case sb::ScalarType::kChar: t->data_as<int8_t>()[i] = static_cast<int8_t>(next() % 4); break;
      case sb::ScalarType::kByte: t->data_as<uint8_t>()[i] = static_cast<uint8_t>(next() % 4); break;
      default: memset(t->data, 0, t->nbytes()); return;
    }
  }
}

// The flag that raises the limit an error ran into, if any.
const char* limit_flag(ErrorCode code) {
  switch (code) {
    case ErrorCode::kMemoryBudget: return " (--max-memory)";
    case ErrorCode::kWorkBudget: return " (--max-work)";
    case ErrorCode::kDeadline: return " (--max-seconds)";
    default: return "";
  }
}

int fail(const Error& err) {
  fprintf(stderr, "error: %s%s\n", err.message(), limit_flag(err.code()));
  return kExitFailure;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  if (!parse_args(argc, argv, &opt)) {
    if (!opt.bad_value.empty()) {
      fprintf(stderr, "error: %s\n", opt.bad_value.c_str());
    } else {
      fprintf(stderr, "%s\n", kUsage);
    }
    return kExitUsage;
  }
#if SB_THREADS
  // Started here, before the program loads: execute() never starts a thread. One thread is this one.
  std::unique_ptr<sb::ThreadPool> pool;
  if (opt.threads > 1) {
    pool.reset(new sb::ThreadPool(opt.threads));
    opt.limits.threads = pool.get();
  }
#endif

  sb::OpRegistry registry;
  Error err = sb::register_kernels(registry);
  if (!err.ok()) return fail(err);
  if (opt.list_kernels) {
    for (size_t i = 0; i < registry.size(); ++i) {
      const sb::KernelDef& def = registry.at(i);
      printf("%s\t", def.op);
      for (size_t c = 0; c < def.calls.size(); ++c) printf(c ? ",%s" : "%s", def.calls[c]);
      printf("\n");
    }
    return 0;
  }

  if (opt.max_seconds > 0) {
    opt.limits.deadline_ns = sb::sat_add(sb::monotonic_ns(), static_cast<uint64_t>(opt.max_seconds * 1e9));
  }
  std::vector<uint8_t> file;
  if (!(err = sb::runner::read_regular_file(opt.model, "model", &file)).ok()) return fail(err);

  sb::Result<sb::Program> program = sb::Program::load(file.data(), file.size());
  if (!program.ok()) return fail(program.error);
  if (!SB_EXTERNAL_DATA && !opt.data_files.empty()) {
    return fail(Error::make(ErrorCode::kNotSupported, "--data %s: this runtime was built without external data (.ptd) support",
                            opt.data_files[0].c_str()));
  }
  // Each data file's bytes and its name; the DataFiles point into both, so neither moves once read.
  std::vector<std::vector<uint8_t>> data_bytes(opt.data_files.size());
  std::vector<std::string> data_labels(opt.data_files.size());
  std::vector<sb::DataFile> data_files;
  for (size_t k = 0; k < opt.data_files.size(); ++k) {
    if (!(err = sb::runner::read_regular_file(opt.data_files[k], "data", &data_bytes[k])).ok()) return fail(err);
    const size_t slash = opt.data_files[k].find_last_of('/');
    data_labels[k] = slash == std::string::npos ? opt.data_files[k] : opt.data_files[k].substr(slash + 1);
    sb::Result<sb::DataFile> data =
        sb::DataFile::load(data_bytes[k].data(), data_bytes[k].size(), data_labels[k].c_str(), opt.limits);
    if (!data.ok()) return fail(data.error);
    data_files.push_back(std::move(data.value));
  }
  program.value.use_data_files(data_files.data(), data_files.size());
  sb::Method method;
  const std::string label = stem(opt.model);
  if (!(err = method.load(program.value, opt.method.c_str(), registry, label.c_str(), opt.limits)).ok()) {
    return fail(err);
  }

  const size_t num_inputs = method.num_inputs();
  const bool per_step = opt.steps > 1 && num_inputs > 0 && opt.inputs.size() == num_inputs * opt.steps;
  if (!opt.inputs.empty() && opt.inputs.size() != num_inputs && !per_step) {
    if (opt.steps > 1) {
      return fail(Error::make(ErrorCode::kInvalidArgument,
                              "%s takes %zu inputs: give %zu (every step's) or %llu (each step's), not %zu",
                              label.c_str(), num_inputs, num_inputs,
                              static_cast<unsigned long long>(num_inputs * opt.steps), opt.inputs.size()));
    }
    return fail(Error::make(ErrorCode::kInvalidArgument, "%s takes %zu inputs, %zu given", label.c_str(), num_inputs,
                            opt.inputs.size()));
  }
  // Kept for the whole run: memory planning lets activations reuse input
  // buffers, so inputs are set again before every execute. One set per step
  // when each step has its own.
  const size_t input_sets = per_step ? static_cast<size_t>(opt.steps) : 1;
  std::vector<sb::runner::NpyArray> arrays(num_inputs * input_sets);
  for (size_t k = 0; k < arrays.size(); ++k) {
    const size_t i = k % num_inputs;
    const sb::Value& expected = method.input(i);
    if (!expected.is_tensor()) continue;  // scalar inputs keep their traced value
    sb::runner::NpyArray& array = arrays[k];
    if (!opt.inputs.empty()) {
      if (!(err = sb::runner::read_npy(opt.inputs[k], &array)).ok()) return fail(err);
      err = sb::runner::adapt_npy_input(opt.inputs[k], expected.as_tensor->dtype, &array);
      if (!err.ok()) return fail(err);
    } else {
      array.tensor = *expected.as_tensor;
      for (int32_t d = 0; d < array.tensor.dim; ++d) array.tensor.dim_order[d] = static_cast<uint8_t>(d);  // logical
      array.bytes.assign(array.tensor.nbytes(), 0);
      array.tensor.data = array.bytes.data();
      fill_generated(&array.tensor, static_cast<uint32_t>(i));
    }
  }
  auto set_inputs = [&](uint64_t step) {
    const size_t first = per_step ? static_cast<size_t>(step) * num_inputs : 0;
    for (size_t i = 0; i < num_inputs; ++i) {
      if (!method.input(i).is_tensor()) continue;
      Error e = method.set_input(i, arrays[first + i].tensor);
      if (!e.ok()) return e;
    }
    return Error();
  };
  auto write_outputs = [&](const std::string& dir) {
    mkdir(dir.c_str(), 0755);  // may exist already; write_npy reports real failures
    for (size_t i = 0; i < method.num_outputs(); ++i) {
      const sb::Value& out = method.output(i);
      if (!out.is_tensor()) continue;
      const std::string path = dir + "/output" + std::to_string(i) + ".npy";
      // Outputs are written in logical (contiguous) order, whatever dim order the program keeps them in;
      // inputs go the other way in Method::set_input.
      sb::Tensor logical = *out.as_tensor;
      std::vector<uint8_t> bytes;
      if (!logical.is_default_dim_order()) {
        bytes.assign(logical.nbytes(), 0);
        for (int32_t d = 0; d < logical.dim; ++d) logical.dim_order[d] = static_cast<uint8_t>(d);
        logical.data = bytes.data();
        sb::copy_across_dim_orders(*out.as_tensor, logical);
      }
      Error e = sb::runner::write_npy(path, logical);
      if (!e.ok()) return e;
    }
    return Error();
  };

#if SB_TRACING
  sb::runner::TraceRecorder recorder;
  method.set_trace(&recorder);
#else
  if (!opt.trace_out.empty()) {
    return fail(Error::make(ErrorCode::kNotSupported, "--trace-out needs a tracing build (-DSB_TRACING=ON)"));
  }
#endif
  // Every step on the one loaded method: its mutable state carries over. With several
  // steps, each step's outputs are written as it ends (the next step overwrites them).
  if (!opt.output_dir.empty() && opt.steps > 1) mkdir(opt.output_dir.c_str(), 0755);
  for (uint64_t step = 0; step < opt.steps; ++step) {
    if (!(err = set_inputs(step)).ok() || !(err = method.execute()).ok()) {
      if (opt.steps == 1) return fail(err);
      return fail(Error::make(err.code(), "step %llu: %s", static_cast<unsigned long long>(step), err.message()));
    }
    if (!opt.output_dir.empty() && opt.steps > 1) {
      if (!(err = write_outputs(opt.output_dir + "/step" + std::to_string(step))).ok()) return fail(err);
    }
  }
#if SB_TRACING
  method.set_trace(nullptr);
  if (!opt.trace_out.empty() && !(err = recorder.write(opt.trace_out)).ok()) return fail(err);
#endif
  if (opt.repeat > 0) {
    std::vector<double> ms;
    for (int k = 0; k < opt.repeat; ++k) {
      const auto start = std::chrono::steady_clock::now();
      if (!(err = set_inputs(0)).ok() || !(err = method.execute()).ok()) return fail(err);
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
    std::sort(ms.begin(), ms.end());
    printf("latency_ms_median %.6f\n", ms[ms.size() / 2]);
  }

  if (!opt.output_dir.empty() && opt.steps == 1 && !(err = write_outputs(opt.output_dir)).ok()) return fail(err);
  printf("memory_bytes %llu\nwork_bytes %llu\n", static_cast<unsigned long long>(method.memory_used()),
         static_cast<unsigned long long>(method.last_work()));
  printf("ok %s: %zu inputs, %zu outputs\n", label.c_str(), method.num_inputs(), method.num_outputs());
  return 0;
}
