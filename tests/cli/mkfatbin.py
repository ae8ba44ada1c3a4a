"""Writes a fatbin file for the tests of cushim check, in the layout
src/common/fatbin.c reads: mkfatbin.py OUT IMAGE...

IMAGE is sass:ARCH or ptx:ARCH:ISA, ARCH with NVIDIA's suffix where it has
one (sass:90a, ptx:100f:8.8).  SASS holds bytes that are no cubin (so it
counts as carrying kernels); PTX holds one .entry.  An IMAGE ending in
+lz4 or +zstd is marked compressed that way and holds PAYLOAD, given as
+lz4=HEX / +zstd=HEX (the compressed bytes themselves)."""
import struct
import sys

FLAG_BASE = 0x11  # 64-bit, Linux
FLAGS = {"a": 0x100000, "f": 0x200000}
METHOD = {"lz4": 0x2000, "zstd": 0x8000}


def entry(spec):
    packed = None
    if "+" in spec:
        spec, packed = spec.split("+", 1)
    kind, rest = spec.split(":", 1)
    parts = rest.split(":")
    arch = parts[0]
    variant = arch[-1] if arch[-1] in "af" else ""
    number = int(arch.rstrip("af"))
    flags = FLAG_BASE | FLAGS.get(variant, 0)
    if kind == "sass":
        code, isa = 2, (0, 0)
        payload = b"SASS" * 4
    else:
        major, minor = map(int, parts[1].split("."))
        code, isa = 1, (major, minor)
        payload = (".version %d.%d\n.target sm_%d%s\n.address_size 64\n\n.visible .entry k()\n{\n\tret;\n}\n"
                   % (major, minor, number, variant)).encode() + b"\0"
    size = 0
    if packed:
        method, data = packed.split("=", 1)
        flags |= METHOD[method]
        size = len(payload)
        payload = bytes.fromhex(data)
    compressed = len(payload) if packed else 0
    payload += b"\0" * (-len(payload) % 8)
    return struct.pack("<HHIQIIHHIIIQQQ", code, 0x0101, 64, len(payload), compressed, 0, isa[1], isa[0], number,
                       0, 0, flags, 0, size) + payload


def main():
    body = b"".join(entry(s) for s in sys.argv[2:])
    with open(sys.argv[1], "wb") as f:
        f.write(struct.pack("<IHHQ", 0xBA55ED50, 1, 16, len(body)) + body)


main()
