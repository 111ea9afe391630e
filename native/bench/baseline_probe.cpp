// core_size_probe without the runtime: the same file reading and printing,
// so that the size difference between the two is the core's own bytes.
#include <cstdio>
#include <cstdlib>

#include "read_program.h"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  size_t size = 0;
  unsigned char* buffer = sb_probe::read_program(argv[1], &size);
  if (buffer == nullptr) return 2;
  printf("%zu\n", size);
  puts(size ? "ok" : "empty");
  free(buffer);
  return 0;
}
