#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Send human-monitor (HMP) commands to a qemu monitor socket.

usage: hmp.py SOCKET COMMAND...   (each COMMAND one monitor line)
       hmp.py --vq SOCKET DEVICE-PATH QUEUE

--vq prints the queue's status and the notification fields the two
sides write into the ring in guest memory (split ring, event index):
avail.flags, used_event (the guest's "interrupt me at") , used.flags and
avail_event (the device's "kick me at").

Prints each command's answer without the monitor's line-editing echo.
The VM harness (tools/vm/vm.sh) opens a monitor socket per VM so that
a wedged guest's devices can be read from outside, e.g. the virtio
queue indexes of a NIC whose transmit queue stopped:
  hmp.py mon.sock 'info virtio-queue-status /machine/peripheral/nic0/virtio-backend 1'
"""
import re
import socket
import sys
import time

ANSI = re.compile(r'\x1b\[[0-9;]*[A-Za-z]')


def read_until_prompt(s, deadline):
    buf = b''
    while not buf.rstrip().endswith(b'(qemu)'):
        s.settimeout(max(0.1, deadline - time.monotonic()))
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            break
        if not chunk:
            break
        buf += chunk
    return ANSI.sub('', buf.decode(errors='replace'))


def command(s, cmd):
    s.sendall(cmd.encode() + b'\n')
    out = read_until_prompt(s, time.monotonic() + 5)
    lines = out.replace('\r', '').split('\n')
    # The first line is the echo of the command; the last the prompt.
    return [line for line in lines[1:]
            if line.strip() and not line.startswith('(qemu)')]


def read16(s, addr):
    out = command(s, 'xp /1hx 0x%x' % addr)
    return int(out[0].split(':')[1], 16) if out else -1


def vq(s, path, queue):
    st = command(s, 'info virtio-queue-status %s %s' % (path, queue))
    f = {}
    for line in st:
        k, _, v = line.strip().partition(':')
        f[k.strip()] = v.strip()
    print(' '.join('%s=%s' % (k, f.get(k)) for k in
                   ('queue_index', 'inuse', 'used_idx', 'signalled_used',
                    'last_avail_idx', 'shadow_avail_idx')))
    try:
        num = int(f['num'])
        avail = int(f['avail'], 16)
        used = int(f['used'], 16)
    except (KeyError, ValueError):
        return
    # Split ring: avail = flags, idx, ring[num], used_event;
    # used = flags, idx, ring[num] of 8 bytes, avail_event.
    print('avail.flags=%d avail.idx=%d used_event=%d used.flags=%d '
          'used.idx=%d avail_event=%d' %
          (read16(s, avail), read16(s, avail + 2),
           read16(s, avail + 4 + 2 * num), read16(s, used),
           read16(s, used + 2), read16(s, used + 4 + 8 * num)))


def main():
    args = sys.argv[1:]
    if len(args) < 2 or (args[0] == '--vq' and len(args) != 4):
        sys.exit(__doc__)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(args[1] if args[0] == '--vq' else args[0])
    read_until_prompt(s, time.monotonic() + 5)
    if args[0] == '--vq':
        vq(s, args[2], args[3])
    else:
        for cmd in args[1:]:
            for line in command(s, cmd):
                print(line)
    s.close()


if __name__ == '__main__':
    main()
