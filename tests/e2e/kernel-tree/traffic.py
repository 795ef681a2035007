#!/usr/bin/env python3
"""The host side of tests/e2e/kernel-tree.sh: drives traffic through qemu's user-mode network
(hostfwd on 127.0.0.1 only) to the guest's agent and checks it.

  traffic.py TCP_PORT UDP_PORT --bytes N --deadline SECONDS

TCP both ways: N random bytes up in writes of odd, varied sizes and N down, each compared by
SHA-256 with the hash the guest computed; then a UDP datagram of every payload length 1..1472
to the guest, each acknowledged with its length and hash over TCP; then datagrams the guest
receives into buffers that run into an unmapped page, each of which must fail with EFAULT.
qemu's user-mode stack drops packets whose checksum is wrong, so a kernel that sums wrongly
shows here as a failed or stalled transfer. Exit 0 when all agree.
"""
import argparse
import hashlib
import os
import socket
import sys
import time

WRITE_SIZES = [1, 5, 13, 40, 57, 511, 1459, 1461, 2919, 4099, 8191, 40001, 65519]


def log(message):
    print(f"traffic: {message}", flush=True)


STALL_SECONDS = 30  # no progress for this long: the kernel dropped what it should have taken


def command(port, line, deadline, payload=b"", receive=None):
    """Opens a connection, sends LINE and PAYLOAD; returns (received bytes, reply line)."""
    timeout = min(STALL_SECONDS, max(1.0, deadline - time.time()))
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        s.sendall(line.encode() + b"\n")
        for offset, length in _chunks(len(payload)):
            s.sendall(payload[offset:offset + length])
        data = bytearray()
        while receive is not None and len(data) < receive:
            chunk = s.recv(min(1 << 20, receive - len(data)))
            if not chunk:
                break
            data += chunk
        reply = bytearray()
        while not reply.endswith(b"\n"):
            chunk = s.recv(1)
            if not chunk:
                break
            reply += chunk
        return bytes(data), reply.decode(errors="replace").strip()


def _chunks(size):
    """(offset, length) pairs that cover SIZE bytes in WRITE_SIZES order."""
    offset, i = 0, 0
    while offset < size:
        length = min(WRITE_SIZES[i % len(WRITE_SIZES)], size - offset)
        yield offset, length
        offset += length
        i += 1


def wait_for_agent(port, deadline):
    """The guest boots and starts its agent; until then qemu accepts and closes at once."""
    while time.time() < deadline:
        try:
            if command(port, "hello", min(deadline, time.time() + 5))[1] == "hello":
                return True
        except OSError:
            pass
        time.sleep(0.5)
    return False


def tcp_transfers(port, size, deadline):
    ok = True
    payload = os.urandom(size)
    start = time.time()
    _, reply = command(port, f"upload {size}", deadline, payload=payload)
    want = "sha256 " + hashlib.sha256(payload).hexdigest()
    good = reply == want
    log(f"tcp host->guest {size} bytes: {'ok' if good else 'FAIL'} (guest '{reply}', host '{want}', "
        f"{time.time() - start:.1f} s emulated)")
    ok &= good
    start = time.time()
    data, reply = command(port, f"download {size}", deadline, receive=size)
    got = "sha256 " + hashlib.sha256(data).hexdigest()
    good = len(data) == size and reply == got
    log(f"tcp guest->host {len(data)} of {size} bytes: {'ok' if good else 'FAIL'} "
        f"(guest '{reply}', host '{got}', {time.time() - start:.1f} s emulated)")
    return ok and good


def tcp_upload(port, size, deadline):
    """SIZE random bytes host to guest, compared by SHA-256; a stall past DEADLINE raises."""
    payload = os.urandom(size)
    _, reply = command(port, f"upload {size}", deadline, payload=payload)
    want = "sha256 " + hashlib.sha256(payload).hexdigest()
    log(f"tcp host->guest {size} bytes: {'ok' if reply == want else 'FAIL'} (guest '{reply}')")
    return reply == want


class LineReader:
    """Lines from a socket with a deadline per read; a timeout leaves it usable."""

    def __init__(self, sock):
        self.sock, self.buffer = sock, b""

    def readline(self, until):
        """The next line without its newline, or None at the deadline or end of stream."""
        while b"\n" not in self.buffer:
            if time.time() >= until:
                return None
            self.sock.settimeout(max(0.01, until - time.time()))
            try:
                chunk = self.sock.recv(4096)
            except socket.timeout:
                return None
            if not chunk:
                return None
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return line.strip()


def fnv1a(data):
    value = 0xCBF29CE484222325
    for byte in data:
        value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{value:016x}"


def udp_datagrams(tcp_port, udp_port, deadline, largest=1472, quick=False):
    """A datagram of every payload length 1..LARGEST to the guest, each acknowledged with its
    length and hash on a TCP connection (qemu's user-mode network with restrict=on drops UDP
    the guest sends). Lost or changed ones are sent again twice; stops after 10 failures in a
    row. QUICK (a kernel expected to fail): each is sent once, and the first failure ends it."""
    attempts, wait, give_up = (1, 2.0, 1) if quick else (3, 3.0, 10)
    passed, failed_in_row, failures = 0, 0, []
    with socket.create_connection(("127.0.0.1", tcp_port), timeout=30) as acks, \
            socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        acks.sendall(b"udp-acks\n")
        reader = LineReader(acks)
        if reader.readline(time.time() + 30) != b"ready":
            log("FAIL: the agent did not start acknowledging datagrams")
            return False
        s.connect(("127.0.0.1", udp_port))
        for length in range(1, largest + 1):
            payload = os.urandom(length)
            want = f"ack {length} {fnv1a(payload)}".encode()
            good = False
            for _attempt in range(attempts):
                if time.time() > deadline:
                    break
                s.send(payload)
                wait_until = time.time() + wait
                while not good:
                    line = reader.readline(wait_until)
                    if line is None:
                        break
                    good = line == want
                if good:
                    break
            if good:
                passed += 1
                failed_in_row = 0
            else:
                failures.append(length)
                failed_in_row += 1
                if failed_in_row >= give_up or time.time() > deadline:
                    break
    ok = passed == largest
    log(f"udp host->guest, every payload length 1..{largest}: {passed} arrived intact"
        + ("" if ok else f", FAIL at lengths {failures[:12]}{' ...' if len(failures) > 12 else ''}"
           + (", gave up" if passed + len(failures) < largest else "")))
    return ok


def udp_receive_faults(tcp_port, udp_port, deadline, count=24):
    """COUNT datagrams (16..1472 bytes) that the guest receives into buffers running into an
    unmapped page: each recv must fail with EFAULT, a fault inside the kernel's
    csum_partial_copy_generic fixed up to return 0, and the kernel must carry on."""
    with socket.create_connection(("127.0.0.1", tcp_port), timeout=30) as acks, \
            socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        acks.sendall(b"udp-acks\n")
        reader = LineReader(acks)
        if reader.readline(time.time() + 30) != b"ready":
            log("FAIL: the agent did not start acknowledging datagrams")
            return False
        with socket.create_connection(("127.0.0.1", tcp_port), timeout=30) as c:
            c.sendall(f"recv-faults {count}\n".encode())
            reply = LineReader(c).readline(time.time() + 30)
        if reply != b"ready":
            log("FAIL: the agent did not take recv-faults")
            return False
        s.connect(("127.0.0.1", udp_port))
        efaults, other = 0, []
        for i in range(count):
            s.send(os.urandom(16 + (i * 613) % 1457))
            line = reader.readline(min(deadline, time.time() + 5.0))
            if line == b"efault":
                efaults += 1
            else:
                other.append(line.decode(errors="replace") if line else "lost")
    ok = efaults == count
    log(f"udp recv into buffers running into an unmapped page: {efaults} of {count} EFAULT"
        + ("" if ok else f", FAIL: {other[:4]}"))
    return ok


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("tcp_port", type=int)
    parser.add_argument("udp_port", type=int)
    parser.add_argument("--bytes", type=int, default=32 << 20)
    parser.add_argument("--deadline", type=float, default=600, help="seconds for everything")
    parser.add_argument("--first-failure", action="store_true",
                        help="stop at the first failed check (a kernel expected to fail)")
    args = parser.parse_args()
    deadline = time.time() + args.deadline
    if not wait_for_agent(args.tcp_port, deadline):
        log("FAIL: the guest's agent never answered")
        return 1
    ok = True
    checks = (lambda: tcp_transfers(args.tcp_port, args.bytes, deadline),
              lambda: udp_datagrams(args.tcp_port, args.udp_port, deadline),
              lambda: udp_receive_faults(args.tcp_port, args.udp_port, deadline))
    if args.first_failure:
        # A kernel expected to fail only has to be caught, in seconds: 1 MiB up over TCP (the
        # guest's receive path checks it with csum_partial; a wrong sum stalls it, and the
        # guest's agent gives the connection up, csumtune.stall=), then the UDP datagrams once
        # each up to the first that does not arrive (the guest's copy, csum_and_copy_to_user,
        # checks those).
        checks = (lambda: tcp_upload(args.tcp_port, 1 << 20, min(deadline, time.time() + 8)),
                  lambda: udp_datagrams(args.tcp_port, args.udp_port, deadline, quick=True))
    for check in checks:
        try:
            ok &= check()
        except OSError as error:
            log(f"FAIL: {error}")
            ok = False
        if not ok and args.first_failure:
            break
    try:
        command(args.tcp_port, "quit", min(deadline, time.time() + 10) if ok else time.time() + 15)
    except OSError:
        pass  # a broken kernel may not carry even this; the agent's own deadline ends it
    log("all checks agree" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
