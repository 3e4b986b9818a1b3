#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Send human-monitor (HMP) commands to a qemu monitor socket.

usage: hmp.py SOCKET COMMAND...   (each COMMAND one monitor line)

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


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sys.argv[1])
    read_until_prompt(s, time.monotonic() + 5)
    for cmd in sys.argv[2:]:
        s.sendall(cmd.encode() + b'\n')
        out = read_until_prompt(s, time.monotonic() + 5)
        lines = out.replace('\r', '').split('\n')
        # The first line is the echo of the command; the last the prompt.
        for line in lines[1:]:
            if line.strip() and not line.startswith('(qemu)'):
                print(line)
    s.close()


if __name__ == '__main__':
    main()
