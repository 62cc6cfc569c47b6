#!/usr/bin/env python3
"""Compare rblosc2's raw filters with c-blosc2's, byte for byte and in speed.

Usage: filters_vs_reference.py OURS.so REFERENCE.so [check|bench] [typesizes]

Both libraries export the same symbols, so each is loaded with RTLD_LOCAL. `check` runs the
four exported filters (blosc2_shuffle, blosc2_unshuffle, blosc2_bitshuffle,
blosc2_bitunshuffle) of both on random blocks over a matrix of typesizes and sizes and
compares outputs and return values; `bench` reports the best MB/s of each on 256 KiB blocks.
Set RBLOSC2_SIMD=scalar|sse2|avx2|gfni to check or time one of our kernel families.
"""
import ctypes
import os
import random
import sys
import time

NAMES = ("blosc2_shuffle", "blosc2_unshuffle", "blosc2_bitshuffle", "blosc2_bitunshuffle")


def load(path):
    lib = ctypes.CDLL(path, mode=os.RTLD_LOCAL)
    for name in NAMES:
        fn = getattr(lib, name)
        fn.restype = ctypes.c_int32
        fn.argtypes = [ctypes.c_int32, ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p]
    return lib


def check(ours, ref):
    rng = random.Random(7)
    typesizes = list(range(1, 34)) + [48, 63, 64, 65, 100, 127, 128, 200, 255, 256]
    sizes = [0, 1, 7, 8, 15, 16, 17, 31, 32, 33, 63, 64, 100, 127, 128, 129, 255, 256, 257,
             511, 512, 513, 1000, 1023, 1024, 1025, 2047, 2048, 4096, 4099, 8191, 10000,
             65536, 65537, 100003, 262144]
    cases = bad = 0
    for ts in typesizes:
        for bs in sizes + [ts * k for k in (8, 16, 24, 32, 40, 64, 100, 256, 264)]:
            data = bytes(rng.getrandbits(8) for _ in range(bs)) if bs < 5000 else os.urandom(bs)
            src = ctypes.create_string_buffer(data, max(bs, 1))
            for name in NAMES:
                d1 = ctypes.create_string_buffer(b"\xaa" * max(bs, 1))
                d2 = ctypes.create_string_buffer(b"\xaa" * max(bs, 1))
                r1 = getattr(ref, name)(ts, bs, src, d1)
                r2 = getattr(ours, name)(ts, bs, src, d2)
                cases += 1
                if r1 != r2 or d1.raw != d2.raw:
                    bad += 1
                    print("MISMATCH", name, "typesize", ts, "blocksize", bs, r1, r2)
    # Arguments the reference rejects without crashing.
    for name in NAMES[:3]:
        for ts, bs in [(-1, 64), (257, 64), (1000, 1000), (4, -1), (-4, 64), (300, 4000)]:
            s = ctypes.create_string_buffer(5000)
            r1 = getattr(ref, name)(ts, bs, s, ctypes.create_string_buffer(5000))
            r2 = getattr(ours, name)(ts, bs, s, ctypes.create_string_buffer(5000))
            cases += 1
            if r1 != r2:
                bad += 1
                print("RETURN MISMATCH", name, ts, bs, r1, r2)
    print("compared", cases, "cases,", bad, "mismatches")
    return bad == 0


def bench(ours, ref, typesizes):
    n = 256 * 1024
    src = ctypes.create_string_buffer(os.urandom(n), n)
    dst = ctypes.create_string_buffer(n)

    def run(fn, ts, reps):
        t = time.perf_counter()
        for _ in range(reps):
            fn(ts, n, src, dst)
        return n * reps / (time.perf_counter() - t) / 1e6

    for ts in typesizes:
        for name in NAMES:
            reps = 200 if "bit" in name else 500
            best_ref = best_ours = 0.0
            for _ in range(15):  # interleaved, best of 15: the machine may be shared
                best_ref = max(best_ref, run(getattr(ref, name), ts, reps))
                best_ours = max(best_ours, run(getattr(ours, name), ts, reps))
            print("%-20s typesize %3d  reference %8.0f MB/s  ours %8.0f MB/s  ratio %.2f"
                  % (name, ts, best_ref, best_ours, best_ours / best_ref), flush=True)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    ours, ref = load(sys.argv[1]), load(sys.argv[2])
    mode = sys.argv[3] if len(sys.argv) > 3 else "check"
    if mode == "check":
        sys.exit(0 if check(ours, ref) else 1)
    typesizes = [int(t) for t in sys.argv[4].split(",")] if len(sys.argv) > 4 else [4, 8]
    bench(ours, ref, typesizes)


if __name__ == "__main__":
    main()
