/*
 * The guest side of tests/e2e/kernel-tree.sh: a static program in the initramfs of a kernel
 * whose csum_partial is csumtune's .S. Everything it does makes that kernel compute or check
 * Internet checksums in software; the host (traffic.py) checks the results.
 *
 *   agent features IFACE       turns GRO off and prints the NIC's offloads (busybox has no
 *                              ethtool)
 *   agent echo ADDRESS         ICMP echo through a ping socket (SOCK_DGRAM, IPPROTO_ICMP) of
 *                              every payload length 0..1472: the kernel copies the payload
 *                              from user space with csum_and_copy_from_user and makes the
 *                              ICMP checksum from that sum; qemu drops a request whose
 *                              checksum is wrong, so each reply proves one sum
 *   agent send-faults ADDRESS  sends from buffers that run into an unmapped page, through a
 *                              UDP socket and a ping socket: each must fail with EFAULT (a
 *                              fault inside csum_partial_copy_generic, fixed up to return 0)
 *   agent serve TCP UDP SECS   serves the host for at most SECS seconds:
 *     TCP, one connection at a time, one command line each:
 *       hello                  -> "hello"
 *       upload N               reads N bytes -> "sha256 HEX" of what arrived
 *       download N             sends N random bytes in writes of odd, varied sizes,
 *                              then "sha256 HEX" of what was sent
 *       quit                   -> "bye", and the agent exits
 *       udp-acks               "ready"; from then on this connection stays open and
 *                              gets "ack LENGTH FNV1A64" for every UDP datagram received
 *       recv-faults N          "ready"; the next N datagrams (16 bytes or more) are
 *                              received into buffers that run into an unmapped page after
 *                              at most 15 bytes: each gets "efault" on the udp-acks
 *                              connection when recv failed with EFAULT (csum_and_copy_to_user
 *                              faulting inside csum_partial_copy_generic), "nofault ..." if
 *                              not
 *     UDP: datagrams are acknowledged on the udp-acks connection (qemu's user-mode network
 *     with restrict=on drops UDP the guest sends, even to a forwarded port).
 *
 * SHA-256 is busybox's sha256sum in a child process: the guest's hash is computed in the
 * guest, the host's in the host, and they are compared on the host.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* One console line the host's checks look for. */
__attribute__((format(printf, 1, 2))) static int say(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  printf("csumtune-e2e: ");
  vprintf(fmt, args);
  printf("\n");
  va_end(args);
  return fflush(stdout);
}

/* ethtool's legacy get-commands answer on every kernel without CONFIG_ETHTOOL_NETLINK. */
static int offload(int fd, const char* iface, unsigned cmd) {
  struct ethtool_value value = {.cmd = cmd};
  struct ifreq request;
  memset(&request, 0, sizeof request);
  snprintf(request.ifr_name, sizeof request.ifr_name, "%s", iface);
  request.ifr_data = (void*)&value;
  if (ioctl(fd, SIOCETHTOOL, &request) != 0) return -1;
  return value.data ? 1 : 0;
}

static int features(const char* iface) {
  int fd = socket(AF_INET, SOCK_DGRAM, 0);
  if (fd < 0) return perror("socket"), 1;
  /* GRO off: with it, udp4_gro_receive checks each datagram's sum (csum_partial) and marks
   * it valid, and recv then copies without summing; without it, recv copies and sums in one
   * pass through csum_and_copy_to_user, which is what the copy's test needs. */
  struct ethtool_value off = {.cmd = ETHTOOL_SGRO, .data = 0};
  struct ifreq request;
  memset(&request, 0, sizeof request);
  snprintf(request.ifr_name, sizeof request.ifr_name, "%s", iface);
  request.ifr_data = (void*)&off;
  if (ioctl(fd, SIOCETHTOOL, &request) != 0) perror("ETHTOOL_SGRO");
  static const struct {
    const char* name;
    unsigned cmd;
  } offloads[] = {{"rx-checksumming", ETHTOOL_GRXCSUM},
                  {"tx-checksumming", ETHTOOL_GTXCSUM},
                  {"scatter-gather", ETHTOOL_GSG},
                  {"tcp-segmentation-offload", ETHTOOL_GTSO},
                  {"generic-receive-offload", ETHTOOL_GGRO}};
  char line[256];
  int used = snprintf(line, sizeof line, "nic %s", iface);
  for (size_t i = 0; i < sizeof offloads / sizeof offloads[0]; ++i) {
    int on = offload(fd, iface, offloads[i].cmd);
    used += snprintf(line + used, sizeof line - used, " %s=%s", offloads[i].name,
                     on < 0 ? "unknown"
                     : on   ? "on"
                            : "off");
  }
  close(fd);
  say("%s", line);
  return 0;
}

/* A child `sha256sum` fed through a pipe. */
struct hasher {
  pid_t pid;
  int in, out;
};

static int hasher_start(struct hasher* h) {
  int to[2], from[2];
  if (pipe(to) || pipe(from)) return -1;
  h->pid = fork();
  if (h->pid < 0) return -1;
  if (h->pid == 0) {
    dup2(to[0], 0);
    dup2(from[1], 1);
    close(to[1]);
    close(from[0]);
    execl("/bin/sha256sum", "sha256sum", (char*)NULL);
    _exit(127);
  }
  close(to[0]);
  close(from[1]);
  h->in = to[1];
  h->out = from[0];
  return 0;
}

static int write_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    data += n;
    size -= (size_t)n;
  }
  return 0;
}

/* Closes the input, reads the 64 hex digits, reaps the child. */
static int hasher_finish(struct hasher* h, char hex[65]) {
  close(h->in);
  size_t got = 0;
  while (got < 64) {
    ssize_t n = read(h->out, hex + got, 64 - got);
    if (n <= 0) break;
    got += (size_t)n;
  }
  hex[got] = 0;
  close(h->out);
  waitpid(h->pid, NULL, 0);
  return got == 64 ? 0 : -1;
}

static int read_line(int fd, char* line, size_t size) {
  size_t used = 0;
  while (used + 1 < size) {
    char c;
    ssize_t n = read(fd, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return -1;
    if (c == '\n') break;
    line[used++] = c;
  }
  line[used] = 0;
  return 0;
}

/* Odd and varied write sizes: below, at and above the MSS, never a power of two. */
static const size_t write_sizes[] = {1, 3, 7, 39, 41, 63, 511, 1447, 1449, 2897, 4093, 9001, 65521};
enum { write_size_count = sizeof write_sizes / sizeof write_sizes[0] };

static int upload(int fd, long size) {
  static char buf[65536];
  struct hasher h;
  if (hasher_start(&h)) return -1;
  long left = size;
  while (left > 0) {
    ssize_t n = read(fd, buf, left < (long)sizeof buf ? (size_t)left : sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || write_all(h.in, buf, (size_t)n)) break;
    left -= n;
  }
  char hex[65], reply[80];
  if (hasher_finish(&h, hex) || left != 0) return say("upload of %ld bytes failed", size), -1;
  snprintf(reply, sizeof reply, "sha256 %s\n", hex);
  say("upload %s (%ld bytes)", hex, size);
  return write_all(fd, reply, strlen(reply));
}

static int download(int fd, long size) {
  static char buf[65536];
  int random_fd = open("/dev/urandom", O_RDONLY);
  struct hasher h;
  if (random_fd < 0 || hasher_start(&h)) return -1;
  long left = size;
  for (unsigned i = 0; left > 0; ++i) {
    size_t chunk = write_sizes[i % write_size_count];
    if ((long)chunk > left) chunk = (size_t)left;
    if (read(random_fd, buf, chunk) != (ssize_t)chunk) break;
    if (write_all(h.in, buf, chunk) || write_all(fd, buf, chunk)) break;
    left -= (long)chunk;
  }
  close(random_fd);
  char hex[65], reply[80];
  if (hasher_finish(&h, hex) || left != 0) return say("download of %ld bytes failed", size), -1;
  snprintf(reply, sizeof reply, "sha256 %s\n", hex);
  say("download %s (%ld bytes)", hex, size);
  return write_all(fd, reply, strlen(reply));
}

/* A page whose next page is unmapped: faulting(k) is an address with k readable and
 * writable bytes after it. */
static unsigned char* hole;
static unsigned char* faulting(size_t k) {
  if (!hole) {
    unsigned char* two =
        mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (two == MAP_FAILED || munmap(two + 4096, 4096)) return perror("mmap"), NULL;
    memset(two, 0x5a, 4096);
    hole = two + 4096;
  }
  return hole - k;
}

static int echo(const char* address) {
  int fd = socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);
  if (fd < 0) return say("icmp-socket FAIL: socket: %s", strerror(errno)), 1;
  struct timeval wait = {.tv_sec = 2};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
  struct sockaddr_in to = {.sin_family = AF_INET};
  inet_pton(AF_INET, address, &to.sin_addr);
  static unsigned char request[8 + 1472], reply[8 + 1472 + 64];
  unsigned seed = 12345;
  int ok = 0, failed = 0, first_failure = -1;
  for (int length = 0; length <= 1472; ++length) {
    struct icmphdr* header = (struct icmphdr*)request;
    memset(header, 0, sizeof *header);
    header->type = ICMP_ECHO;
    header->un.echo.sequence = htons((unsigned short)length);
    for (int i = 0; i < length; ++i)
      request[8 + i] = (unsigned char)((seed = seed * 1103515245u + 12345u) >> 16);
    int good = 0;
    for (int attempt = 0; attempt < 2 && !good; ++attempt) {
      if (sendto(fd, request, 8 + (size_t)length, 0, (struct sockaddr*)&to, sizeof to) < 0) break;
      for (;;) {
        ssize_t n = recv(fd, reply, sizeof reply, 0);
        if (n < 0) break; /* timed out: the request or its reply was dropped */
        const struct icmphdr* got = (const struct icmphdr*)reply;
        if (got->type != ICMP_ECHOREPLY || got->un.echo.sequence != htons((unsigned short)length))
          continue;
        good = n == 8 + length && memcmp(reply + 8, request + 8, (size_t)length) == 0;
        break;
      }
    }
    if (good) {
      ++ok;
    } else if (failed++ == 0) {
      first_failure = length;
    }
    if (failed >= 3) break; /* a kernel that sums wrongly: no need to wait for every length */
  }
  close(fd);
  if (failed)
    return say("icmp-socket FAIL: %d echoes ok, %d failed, the first at payload %d", ok, failed,
               first_failure),
           1;
  return say("icmp-socket %d echoes ok (payload 0..1472, sums by csum_and_copy_from_user)", ok), 0;
}

static int send_faults(const char* address) {
  struct sockaddr_in to = {.sin_family = AF_INET, .sin_port = htons(9)};
  inet_pton(AF_INET, address, &to.sin_addr);
  static const size_t readable[] = {0, 1, 7, 8, 9, 40, 63, 64, 100, 255};
  int udp = socket(AF_INET, SOCK_DGRAM, 0), icmp = socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP);
  int efault = 0, wrong = 0;
  for (size_t i = 0; i < sizeof readable / sizeof readable[0]; ++i) {
    for (size_t length = readable[i] + 1; length <= 1400; length = length * 3 + 5) {
      unsigned char* at = faulting(readable[i]);
      if (!at) return 1;
      int sockets[2] = {udp, icmp};
      for (int s = 0; s < 2; ++s) {
        if (s == 1) {
          if (readable[i] < 8) continue; /* the ICMP header must be readable: the payload faults */
          struct icmphdr header = {.type = ICMP_ECHO};
          memcpy(at, &header, sizeof header);
        }
        ssize_t n = sendto(sockets[s], at, length, 0, (struct sockaddr*)&to, sizeof to);
        if (n < 0 && errno == EFAULT) {
          ++efault;
        } else if (wrong++ < 5) {
          say("send-faults FAIL: %s of %zu bytes, %zu readable: %s", s ? "icmp" : "udp", length,
              readable[i], n < 0 ? strerror(errno) : "sent");
        }
      }
    }
  }
  close(udp);
  close(icmp);
  if (wrong)
    return say("send-faults FAIL: %d of %d sends did not fail with EFAULT", wrong, efault + wrong),
           1;
  return say("send-faults %d sends from buffers running into an unmapped page: all EFAULT", efault),
         0;
}

/* FNV-1a, 64 bits: enough to tell a datagram that arrived changed. */
static unsigned long long fnv1a(const unsigned char* data, size_t size) {
  unsigned long long hash = 0xcbf29ce484222325ULL;
  for (size_t i = 0; i < size; ++i) hash = (hash ^ data[i]) * 0x100000001b3ULL;
  return hash;
}

enum { keep_open = 2 };
static long recv_faults_left; /* datagrams still to receive into a faulting buffer */

/* Returns 1 when the host said quit, keep_open for the udp-acks connection. */
static int serve_connection(int fd) {
  char line[128];
  long size;
  if (read_line(fd, line, sizeof line)) return 0;
  if (sscanf(line, "recv-faults %ld", &size) == 1 && size >= 0) {
    recv_faults_left = size;
    return write_all(fd, "ready\n", 6), 0;
  }
  if (strcmp(line, "hello") == 0) return write_all(fd, "hello\n", 6), 0;
  if (strcmp(line, "udp-acks") == 0) return write_all(fd, "ready\n", 6), keep_open;
  if (strcmp(line, "quit") == 0) return write_all(fd, "bye\n", 4), 1;
  if (sscanf(line, "upload %ld", &size) == 1 && size >= 0) return upload(fd, size), 0;
  if (sscanf(line, "download %ld", &size) == 1 && size >= 0) return download(fd, size), 0;
  say("unknown command '%s'", line);
  return 0;
}

static int listener(int type, int port) {
  int fd = socket(AF_INET, type, 0), one = 1;
  struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (fd < 0 || bind(fd, (struct sockaddr*)&address, sizeof address)) return perror("bind"), -1;
  if (type == SOCK_STREAM && listen(fd, 4)) return perror("listen"), -1;
  return fd;
}

/* STALL > 0: a TCP connection that brings nothing for STALL seconds is given up (a kernel
 * expected to fail drops what it sums wrongly: the host's quit must still get through). */
static int serve(int tcp_port, int udp_port, int seconds, int stall) {
  int tcp = listener(SOCK_STREAM, tcp_port), udp = listener(SOCK_DGRAM, udp_port);
  if (tcp < 0 || udp < 0) return 1;
  /* Non-blocking, because poll() on a blocking UDP socket checks the first datagram's sum
   * on its own (udp_poll -> first_packet_length) and marks it valid: recv would then copy
   * without summing. Non-blocking, recv copies and sums in one pass, through
   * csum_and_copy_to_user -> csum_partial_copy_generic. */
  fcntl(udp, F_SETFL, fcntl(udp, F_GETFL) | O_NONBLOCK);
  alarm((unsigned)seconds); /* a kernel that drops packets must not hang the test */
  say("agent serving tcp %d udp %d", tcp_port, udp_port);
  long received = 0;
  int acks = -1;
  static unsigned char datagram[65536];
  for (;;) {
    struct pollfd fds[2] = {{.fd = tcp, .events = POLLIN}, {.fd = udp, .events = POLLIN}};
    if (poll(fds, 2, -1) < 0) continue;
    if ((fds[1].revents & POLLIN) && recv_faults_left > 0) {
      /* Into a buffer with 0..15 usable bytes before the hole, 2048 long so that nothing
       * is truncated (then the kernel copies and checks the sum in one pass; a MSG_PEEK
       * first would check it on its own and spoil that). The host sends 16 bytes or more. */
      unsigned char* at = faulting((size_t)(recv_faults_left * 7 % 16));
      ssize_t n = at ? recv(udp, at, 2048, 0) : -1;
      char ack[64];
      if (n < 0 && errno == EFAULT) {
        snprintf(ack, sizeof ack, "efault\n");
      } else {
        snprintf(ack, sizeof ack, "nofault %ld %s\n", (long)n,
                 n < 0 ? strerror(errno) : "received");
      }
      if (acks >= 0) write_all(acks, ack, strlen(ack));
      --recv_faults_left;
    } else if (fds[1].revents & POLLIN) {
      ssize_t n = recv(udp, datagram, sizeof datagram, 0); /* EAGAIN: dropped, a bad sum */
      if (n >= 0) {
        ++received;
        char ack[64];
        snprintf(ack, sizeof ack, "ack %ld %016llx\n", (long)n, fnv1a(datagram, (size_t)n));
        if (acks >= 0) write_all(acks, ack, strlen(ack));
      }
    }
    if (fds[0].revents & POLLIN) {
      int fd = accept(tcp, NULL, NULL);
      if (fd < 0) continue;
      if (stall > 0) {
        struct timeval wait = {.tv_sec = stall};
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
      }
      int outcome = serve_connection(fd);
      if (outcome == keep_open) {
        if (acks >= 0) close(acks);
        acks = fd;
        continue;
      }
      close(fd);
      if (outcome == 1) break;
    }
  }
  say("agent done, %ld datagrams received", received);
  return 0;
}

int main(int argc, char** argv) {
  signal(SIGPIPE, SIG_IGN);
  if (argc == 3 && strcmp(argv[1], "features") == 0) return features(argv[2]);
  if (argc == 3 && strcmp(argv[1], "echo") == 0) return echo(argv[2]);
  if (argc == 3 && strcmp(argv[1], "send-faults") == 0) return send_faults(argv[2]);
  if ((argc == 5 || argc == 6) && strcmp(argv[1], "serve") == 0)
    return serve(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]), argc == 6 ? atoi(argv[5]) : 0);
  fprintf(stderr,
          "usage: agent features IFACE | agent echo ADDRESS | agent send-faults ADDRESS | agent "
          "serve TCP_PORT UDP_PORT SECONDS [STALL]\n");
  return 2;
}
