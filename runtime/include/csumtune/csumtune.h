/* csumtune C API: compile a checksum kernel from a parameter string and call it.
 *
 * A kernel computes what Linux csum_partial computes: a 32-bit partial ones'-complement
 * sum of buf[0..len) plus `sum`, congruent modulo 0xffff to the sum of the buffer's
 * little-endian 16-bit words. It is not folded; csumtune_fold() folds it to 16 bits and
 * the Internet checksum is (uint16_t)~csumtune_fold(s).
 *
 * All functions are safe to call from several threads; a kernel may be called from any
 * number of threads at once. */
#ifndef CSUMTUNE_CSUMTUNE_H
#define CSUMTUNE_CSUMTUNE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef uint32_t (*csumtune_fn)(const void* buf, int len, uint32_t sum);
/* A copying kernel (params with kind=copy): copies src[0..len) to dst and returns the sum of
 * those bytes plus sum in one pass. src and dst must not overlap. */
typedef uint32_t (*csumtune_copy_fn)(const void* src, void* dst, int len, uint32_t sum);
typedef struct csumtune_kernel csumtune_kernel;

/* Compiles the kernel described by `params` (e.g. "carry=adc,chains=4,unroll=16").
 * On error returns NULL and writes a message into err (when err is not NULL and errlen > 0):
 * malformed or invalid parameters, or a CPU lacking an instruction set the kernel needs. */
csumtune_kernel* csumtune_compile(const char* params, char* err, size_t errlen);

/* Compiles the winner of a results.json written by `csumtune tune`. NULL + message when the
 * file is missing, truncated, not JSON, of another schema version, has no winner, or was
 * tuned on a CPU with another fingerprint. */
csumtune_kernel* csumtune_load(const char* path, char* err, size_t errlen);

/* The best tuned kernel for this CPU, or a safe default shape. Never NULL on a working x86-64.
 * It looks in these directories, in order, and the first that holds a usable run for this
 * CPU (DIR/<cpu-key>/<run>/results.json with its winner.S) supplies the kernel:
 *   1. each entry of CSUMTUNE_RESULTS (a colon-separated list of results directories);
 *   2. $XDG_DATA_HOME/csumtune/results (default ~/.local/share/csumtune/results);
 *   3. the installed share/csumtune/results.
 * err (when not NULL) receives which kernel it used and, for the default, why; so does
 * csumtune_kernel_origin(), and csumtune_kernel_fallback() says why as a number. */
csumtune_kernel* csumtune_best(char* err, size_t errlen);

/* Where the kernel came from: a results file, explicit params, or the default (and why). */
const char* csumtune_kernel_origin(const csumtune_kernel* k);

/* Why csumtune_best() fell back to the built-in default (CSUMTUNE_TUNED when it did not, and
 * for every kernel not from csumtune_best()). */
enum csumtune_fallback {
  CSUMTUNE_TUNED = 0,                   /* a tuned kernel (or not from csumtune_best) */
  CSUMTUNE_FALLBACK_NO_RESULTS_DIR = 1, /* no directory of the search path exists */
  CSUMTUNE_FALLBACK_NO_RUN_FOR_CPU = 2, /* none has a run under this CPU's key */
  CSUMTUNE_FALLBACK_OTHER_CPU = 3,      /* the runs under this CPU's key were tuned on another */
  CSUMTUNE_FALLBACK_NO_USABLE_RUN = 4,  /* runs for this CPU, none usable (unfinished, ...) */
  CSUMTUNE_FALLBACK_SEARCH_FAILED = 5   /* the search itself failed (see the origin) */
};
int csumtune_kernel_fallback(const csumtune_kernel* k);

/* The callable kernel; valid until csumtune_kernel_free(k). NULL for a copying kernel. */
csumtune_fn csumtune_kernel_fn(const csumtune_kernel* k);

/* The copying kernel (kind=copy); valid until csumtune_kernel_free(k). NULL for a summing
 * kernel (and for NULL). */
csumtune_copy_fn csumtune_kernel_copy_fn(const csumtune_kernel* k);

/* The kernel's canonical parameter string; valid until csumtune_kernel_free(k). */
const char* csumtune_kernel_params(const csumtune_kernel* k);

/* Bytes of machine code in the kernel (0 for NULL). */
size_t csumtune_kernel_size(const csumtune_kernel* k);

/* Releases the kernel and its code (filled with int3; the process keeps the executable block
   for the next kernel). NULL is allowed. */
void csumtune_kernel_free(csumtune_kernel* k);

/* Folds a 32-bit partial sum to 16 bits with end-around carry (not complemented).
 * 0 and 0xffff represent the same value. */
uint16_t csumtune_fold(uint32_t sum);

#ifdef __cplusplus
}
#endif

#endif /* CSUMTUNE_CSUMTUNE_H */
