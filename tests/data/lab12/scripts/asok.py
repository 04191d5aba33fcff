#!/usr/bin/env python3
"""Talk to Ceph admin sockets directly (one process for all OSDs, so a capture
taken while fio runs costs a few ms of CPU instead of one `ceph daemon` python
start per OSD).

usage: asok.py [--gzip] OUTDIR SUFFIX COMMAND SOCKET...
       asok.py --get "config get OPTION" SOCKET
  writes OUTDIR/<daemon>.<SUFFIX>.json[.gz] for each socket, daemon name taken
  from the socket file name (ceph-osd.0.asok -> osd.0); SUFFIX "-" writes nothing.
  COMMAND is an admin-socket prefix, e.g. "perf dump", "dump_historic_ops".
  --get prints the value of one option (capture.sh restores what it changed).
"""
import gzip
import json
import os
import socket
import struct
import sys
import time


def asok_command(path, cmd, timeout=60):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    s.connect(path)
    s.sendall(json.dumps(cmd).encode() + b"\0")
    hdr = b""
    while len(hdr) < 4:
        chunk = s.recv(4 - len(hdr))
        if not chunk:
            raise IOError("short read from %s" % path)
        hdr += chunk
    (n,) = struct.unpack(">I", hdr)
    buf = bytearray()
    while len(buf) < n:
        chunk = s.recv(min(1 << 20, n - len(buf)))
        if not chunk:
            raise IOError("short read from %s" % path)
        buf += chunk
    s.close()
    return bytes(buf)


def daemon_name(sock):
    b = os.path.basename(sock)
    if b.startswith("ceph-"):
        b = b[5:]
    if b.endswith(".asok"):
        b = b[:-5]
    return b


def main(argv):
    if argv and argv[0] == "--get":
        words = argv[1].split() if len(argv) == 3 else []
        if words[:2] != ["config", "get"] or len(words) != 3:
            print(__doc__, file=sys.stderr)
            return 2
        data = asok_command(argv[2], {"prefix": "config get", "var": words[2]})
        print(list(json.loads(data.decode()).values())[0])
        return 0
    gz = False
    if argv and argv[0] == "--gzip":
        gz = True
        argv = argv[1:]
    if len(argv) < 4:
        print(__doc__, file=sys.stderr)
        return 2
    outdir, suffix, command, socks = argv[0], argv[1], argv[2], argv[3:]
    os.makedirs(outdir, exist_ok=True)
    words = command.split()
    cmd = {"prefix": command}
    # "config set VAR VAL"
    if words[:2] == ["config", "set"] and len(words) == 4:
        cmd = {"prefix": "config set", "var": words[2], "val": [words[3]]}
    elif words[:2] == ["perf", "reset"] and len(words) == 3:
        cmd = {"prefix": "perf reset", "var": words[2]}
    for sock in socks:
        t0 = time.time()
        data = asok_command(sock, cmd)
        t1 = time.time()
        if data.startswith(b"ERROR"):
            print("%s: %s -> %s" % (sock, cmd, data.decode(errors="replace")),
                  file=sys.stderr)
            return 1
        if suffix == "-":
            continue
        name = daemon_name(sock)
        fn = os.path.join(outdir, "%s.%s.json" % (name, suffix))
        if gz:
            with gzip.open(fn + ".gz", "wb", compresslevel=6) as f:
                f.write(data)
        else:
            with open(fn, "wb") as f:
                f.write(data)
        print("%s %s %.3fs %dB" % (name, command, t1 - t0, len(data)), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
