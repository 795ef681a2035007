/* checksum-aot: prints the 16-bit Internet checksum (RFC 1071) of each file named on the
 * command line, computed by csum_partial from an ahead-of-time csumtune library: the body
 * tuned for this CPU, picked once at load by GNU IFUNC. No JIT, no executable heap, no results
 * files, nothing of csumtune installed:
 *
 *   make -C two-cpu && cc -O2 -Itwo-cpu -o checksum-aot main.c two-cpu/libcsumtune_library.a
 *   checksum-aot FILE...      ->   "<checksum as 4 hex digits>  FILE" per file
 *
 * The body it runs ("portable" or a CPU key) goes to stderr. Exit status: 0, or 2 when a file
 * cannot be read. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csumtune_library.h"

enum { CHUNK = 1 << 20 }; /* even, so every chunk but the last keeps 16-bit word pairing */

static uint16_t fold(uint32_t sum) {
  sum = (sum & 0xffff) + (sum >> 16);
  sum = (sum & 0xffff) + (sum >> 16);
  return (uint16_t)sum;
}

static int checksum_file(const char* path, unsigned char* buf) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "checksum-aot: %s: %s\n", path, strerror(errno));
    return 2;
  }
  uint32_t sum = 0;
  size_t n;
  while ((n = fread(buf, 1, CHUNK, f)) > 0) sum = csum_partial(buf, (int)n, sum);
  int failed = ferror(f);
  fclose(f);
  if (failed) {
    fprintf(stderr, "checksum-aot: %s: read error\n", path);
    return 2;
  }
  printf("%04x  %s\n", (unsigned)(uint16_t)~fold(sum), path);
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: checksum-aot FILE...\n");
    return 2;
  }
  fprintf(stderr, "checksum-aot: csum_partial body: %s\n", csum_partial_variant());
  unsigned char* buf = malloc(CHUNK);
  if (!buf) return 2;
  int status = 0;
  for (int i = 1; i < argc; i++) {
    if (checksum_file(argv[i], buf)) status = 2;
  }
  free(buf);
  return status;
}
