#!/usr/bin/env python3
"""Writes the seeds of the MTZ fuzz target (tests/fuzz/corpus/mtz/) from
data/1hpv_fcalc.mtz: small files, since libFuzzer cuts inputs at -max_len
(64 KB), each taking another path of the reader.

usage: python3 tests/fuzz/make-mtz-seeds.py   (from the source root)
"""
import struct

SRC = "data/1hpv_fcalc.mtz"
OUT = "tests/fuzz/corpus/mtz/"
NCOL = 5


def load():
    d = open(SRC, "rb").read()
    header = (struct.unpack("<i", d[4:8])[0] - 1) * 4
    records = [d[i:i + 80] for i in range(header, len(d), 80)]
    rows = [d[80 + i * NCOL * 4:80 + (i + 1) * NCOL * 4] for i in range((header - 80) // (NCOL * 4))]
    return d[:80], rows, records


def record(text):
    return text.ljust(80).encode("ascii")


def build(pre, rows, records, big=False, wide=False):
    """An MTZ file of @rows under @records, NCOL and the pointer made to agree."""
    nref = len(rows)
    pointer = 21 + nref * NCOL
    records = [record("NCOL %8d %12d %8d" % (NCOL, nref, 0)) if r.startswith(b"NCOL") else r
               for r in records]
    pre = bytearray(pre)
    i = ">" if big else "<"
    if big:
        pre[8:10] = b"\x11\x11"
        rows = [b"".join(r[k:k + 4][::-1] for k in range(0, len(r), 4)) for r in rows]
    if wide:
        pre[4:8] = struct.pack(i + "i", -1)
        pre[12:20] = struct.pack(i + "q", pointer)
    else:
        pre[4:8] = struct.pack(i + "i", pointer)
    return bytes(pre) + b"".join(rows) + b"".join(records)


def main():
    pre, rows, records = load()
    open(OUT + "1hpv-200", "wb").write(build(pre, rows[:200], records))
    open(OUT + "1hpv-200-big-endian", "wb").write(build(pre, rows[:200], records, big=True))
    open(OUT + "1hpv-50-pointer64", "wb").write(build(pre, rows[:50], records, wide=True))

    # P 1 with a VALM number, and a reflection of that amplitude (missing)
    p1 = []
    for r in records:
        if r.startswith(b"SYMINF"):
            p1.append(record("SYMINF   1  1 P     1                 'P 1' PG1"))
            p1.append(record("SYMM X,Y,Z"))
        elif r.startswith(b"SYMM"):
            continue
        elif r.startswith(b"VALM"):
            p1.append(record("VALM 0"))
        else:
            p1.append(r)
    some = list(rows[:30])
    some[3] = some[3][:12] + struct.pack("<f", 0.0) + some[3][16:]
    open(OUT + "p1-valm", "wb").write(build(pre, some, p1))

    # C 1 2 1: centring operators after the primitive ones, in another notation
    c2 = []
    for r in records:
        if r.startswith(b"SYMINF"):
            c2.append(record("SYMINF   4  2 C     5                 'C 1 2 1' PG2"))
            for op in ("X,  Y,  Z", "-X,  Y,  -Z", "1/2+X,  1/2+Y,  Z", "1/2-X,1/2+Y,-Z"):
                c2.append(record("SYMM " + op))
        elif not r.startswith(b"SYMM"):
            c2.append(r)
    open(OUT + "c2-centred", "wb").write(build(pre, rows[:30], c2))


main()
