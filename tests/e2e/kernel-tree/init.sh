#!/bin/sh
# /init of the kernel-tree test's initramfs (tests/e2e/kernel-tree.sh). The kernel's own
# csum_partial is csumtune's .S; every line starting "csumtune-e2e:" is read by the host.
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs dev /dev
echo "csumtune-e2e: boot ok, kernel $(uname -r)"
seconds=$(sed -n 's/.*csumtune.seconds=\([0-9]*\).*/\1/p' /proc/cmdline)
# A kernel expected to fail: a TCP connection that stalls this long is given up.
stall=$(sed -n 's/.*csumtune.stall=\([0-9]*\).*/\1/p' /proc/cmdline)

# qemu's user-mode network: the host is 10.0.2.2 and fec0::2, we are .15 and fec0::15.
ip link set lo up
ip link set eth0 up
echo 0 >/proc/sys/net/ipv6/conf/eth0/accept_dad
ip addr add 10.0.2.15/24 dev eth0
ip route add default via 10.0.2.2
ip -6 addr add fec0::15/64 dev eth0
# Checksum offload off: the device negotiated neither VIRTIO_NET_F_CSUM (bit 0: it would sum
# what we send) nor VIRTIO_NET_F_GUEST_CSUM (bit 1: it could mark what we receive as valid);
# the kernel's view through ethtool beside it.
features=$(cat /sys/class/net/eth0/device/features)
echo "csumtune-e2e: virtio features csum=$(echo "$features" | cut -c1) guest_csum=$(echo "$features" | cut -c2)"
/bin/agent features eth0

# ping: the kernel validates every echo reply it receives; payloads below, at and above the
# main loop's stride, up to a full frame, and over IPv4 one that is fragmented and reassembled
# (qemu's user-mode stack reassembles IPv4 only: IPv6 stops at a full frame, 1452 bytes).
for size in 0 1 7 8 15 16 31 39 40 41 56 63 64 65 100 127 255 511 1000 1400 1452 1472 3000; do
  ping -c 1 -W 5 -s "$size" 10.0.2.2 >/dev/null 2>&1 && r=ok || r=FAIL
  echo "csumtune-e2e: ping $size $r"
  [ "$size" -gt 1452 ] && continue
  ping6 -c 1 -W 5 -s "$size" fec0::2 >/dev/null 2>&1 && r=ok || r=FAIL
  echo "csumtune-e2e: ping6 $size $r"
done

# The copy: csum_partial_copy_generic (csum-copy_64.S, csumtune's too) sums what user space
# sends through a ping socket, and that sum is the ICMP checksum qemu checks; sends from
# buffers that run into an unmapped page must fail with EFAULT, the kernel carrying on.
echo "0 0" >/proc/sys/net/ipv4/ping_group_range
/bin/agent echo 10.0.2.2
/bin/agent send-faults 10.0.2.2

# TCP and UDP, driven by the host (traffic.py); ends when the host says quit or at the deadline.
/bin/agent serve 7000 7001 "${seconds:-600}" "${stall:-0}"

# The stack's own verdicts: packets whose checksum did not verify. (The datagrams received
# into faulting buffers count as Udp InErrors, not InCsumErrors.)
grep -E '^(Ip|Icmp|Tcp|Udp):' /proc/net/snmp | sed 's/^/csumtune-e2e: snmp /'
grep -E 'InCsumErrors' /proc/net/snmp6 | sed 's/^/csumtune-e2e: snmp6 /'

# The module harness, built against this kernel: a second csumtune shape compared with the
# kernel's csum_partial (ours) over lengths, alignments and initial sums.
if insmod /modules/harness.ko iterations=200; then
  echo "csumtune-e2e: insmod ok"
  rmmod csum_test
else
  echo "csumtune-e2e: insmod failed"
fi
echo "csumtune-e2e: tainted $(cat /proc/sys/kernel/tainted)"
echo "csumtune-e2e: all done"
reboot -f
