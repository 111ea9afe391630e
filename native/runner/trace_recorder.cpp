#include "trace_recorder.h"

#include <cstdio>

namespace sb::runner {
namespace {

void append_tensor(std::string* key, const Tensor* t) {
  if (!key->empty() && key->back() != '/') *key += '|';
  if (t == nullptr) return;
  *key += std::to_string(static_cast<int>(t->dtype)) + ';';
  for (int32_t d = 0; d < t->dim; ++d) *key += (d ? "," : "") + std::to_string(d);
}

}  // namespace

void TraceRecorder::on_invoke(const KernelDef& def, const KernelDef* caller, Args args) {
  // Same shape as ExecuTorch's kernel keys: one entry per tensor argument; a
  // tensor list is described by its first element.
  std::string key = "v1/";
  for (const Value* v : args) {
    if (v == nullptr) continue;
    if (v->tag == Tag::kTensor) {
      append_tensor(&key, v->as_tensor);
    } else if ((v->tag == Tag::kTensorList || v->tag == Tag::kOptionalTensorList) && v->as_tensor_list.size() > 0) {
      append_tensor(&key, v->as_tensor_list[0]);
    }
  }
  records_.insert(std::string(def.op) + '\t' + (caller ? caller->op : "-") + '\t' + key);
}

Error TraceRecorder::write(const std::string& path) const {
  const std::string tmp = path + ".tmp";
  FILE* f = fopen(tmp.c_str(), "w");
  if (f == nullptr) return Error::make(ErrorCode::kInvalidArgument, "%s: cannot create trace file", path.c_str());
  bool ok = true;
  for (const std::string& line : records_) ok = ok && fprintf(f, "%s\n", line.c_str()) > 0;
  ok = (fclose(f) == 0) && ok;
  if (!ok || rename(tmp.c_str(), path.c_str()) != 0) {
    remove(tmp.c_str());
    return Error::make(ErrorCode::kInvalidArgument, "%s: write failed (disk full?)", path.c_str());
  }
  return Error();
}

}  // namespace sb::runner
