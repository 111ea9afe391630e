// core_size_probe without the runtime: the same file reading and printing,
// so that the size difference between the two is the core's own bytes.
#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  FILE* f = fopen(argv[1], "rb");
  if (f == nullptr) return 2;
  static unsigned char buffer[1 << 20];
  const size_t size = fread(buffer, 1, sizeof buffer, f);
  fclose(f);
  printf("%zu\n", size);
  puts(size ? "ok" : "empty");
  return 0;
}
