/* checksum-files: prints the 16-bit Internet checksum (RFC 1071) of each file named on the
 * command line, computed by the tuned kernel for this CPU that csumtune_best() loads.
 *
 *   checksum-files FILE...      ->   "<checksum as 4 hex digits>  FILE" per file
 *
 * Which kernel it uses (a committed tuning result for this CPU, or the safe default) goes
 * to stderr. Exit status: 0, or 2 when a file cannot be read. */
#include <csumtune/csumtune.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CHUNK = 1 << 20 }; /* even, so every chunk but the last keeps 16-bit word pairing */

static int checksum_file(csumtune_fn fn, const char* path, unsigned char* buf) {
  FILE* f = fopen(path, "rb");
  if (!f) {
    fprintf(stderr, "checksum-files: %s: %s\n", path, strerror(errno));
    return 2;
  }
  uint32_t sum = 0;
  size_t n;
  while ((n = fread(buf, 1, CHUNK, f)) > 0) sum = fn(buf, (int)n, sum);
  int failed = ferror(f);
  fclose(f);
  if (failed) {
    fprintf(stderr, "checksum-files: %s: read error\n", path);
    return 2;
  }
  printf("%04x  %s\n", (unsigned)(uint16_t)~csumtune_fold(sum), path);
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: checksum-files FILE...\n");
    return 2;
  }
  char origin[512];
  csumtune_kernel* k = csumtune_best(origin, sizeof origin);
  if (!k) {
    fprintf(stderr, "checksum-files: %s\n", origin);
    return 2;
  }
  fprintf(stderr, "checksum-files: kernel %s from %s\n", csumtune_kernel_params(k), origin);
  unsigned char* buf = malloc(CHUNK);
  if (!buf) return 2;
  int status = 0;
  for (int i = 1; i < argc; i++) {
    if (checksum_file(csumtune_kernel_fn(k), argv[i], buf)) status = 2;
  }
  free(buf);
  csumtune_kernel_free(k);
  return status;
}
