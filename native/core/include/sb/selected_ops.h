// Which ops a runtime registers, known when it compiles.
//
// Code that serves many ops compiles a part only when one of that part's ops
// is selected. The XNNPACK backend's planner, for example, lowers every node
// kind, and keeps a lowering only while a kind it serves is in the runtime.
// The generated header (bot/selection/codegen.py, named by
// SB_SELECTED_OPS_HEADER) lists the runtime's ops as kSelectedOps. A source
// compiled without one (a test, a fuzzer) keeps everything.
#pragma once

#ifdef SB_SELECTED_OPS_HEADER
#include SB_SELECTED_OPS_HEADER
#endif

namespace sb::selection {

// `text` without its leading `prefix`, or nullptr when it does not start so.
constexpr const char* after_prefix(const char* text, const char* prefix) {
  while (*prefix != 0) {
    if (*text != *prefix) return nullptr;
    ++text;
    ++prefix;
  }
  return text;
}

// A glob in which '*' matches any run of characters and every other character matches itself.
constexpr bool glob_match(const char* pattern, const char* text) {
  const char* star = nullptr;  // the last '*' seen, to retry from when a literal run fails
  const char* retry = nullptr;
  while (*text != 0) {
    if (*pattern == '*') {
      star = pattern++;
      retry = text;
    } else if (*pattern == *text) {
      ++pattern;
      ++text;
    } else if (star != nullptr) {
      pattern = star + 1;
      text = ++retry;
    } else {
      return false;
    }
  }
  while (*pattern == '*') ++pattern;
  return *pattern == 0;
}

// Whether the runtime registers an op `<ns>::<name>.<overload>` whose overload matches `overload`
// (a glob): any_selected("xnnpack", "conv2d", "qs8*") holds for xnnpack::conv2d.qs8_qc8w.
constexpr bool any_selected(const char* ns, const char* name, const char* overload = "*") {
#ifdef SB_SELECTED_OPS_HEADER
  for (const char* const* op = kSelectedOps; *op != nullptr; ++op) {
    const char* rest = after_prefix(*op, ns);
    if (rest != nullptr) rest = after_prefix(rest, "::");
    if (rest != nullptr) rest = after_prefix(rest, name);
    if (rest != nullptr && *rest == '.' && glob_match(overload, rest + 1)) return true;
  }
  return false;
#else
  (void)ns;
  (void)name;
  (void)overload;
  return true;
#endif
}

}  // namespace sb::selection
