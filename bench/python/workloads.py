"""python-blosc2 workloads, timed inside one process, every result checked against numpy.

Usage: PYTHON workloads.py WORKDIR [--only REGEX] [--list] [--min-time S] [--max-reps N]

Run by bench/python/compare.py, once per process, alternately with two python-blosc2 builds (one
on rblosc2, one on the official wheel's c-blosc2). Prints, line by line:

    lib PATH            the libblosc2 this process maps (read from /proc/self/maps)
    version BLOSC2 CLIB python-blosc2's and the C library's versions
    row FAMILY NAME MS  the best time of one workload, in milliseconds
    row FAMILY NAME WRONG   when its result differs from numpy's (no time then)

A row is named OP@DATASET. A dataset is an array (dtype, shape, chunking) with the codec and the
thread count it is compressed and read with; every OP runs on several datasets. The families
(reduce, expr, where, slice, convert, file, schunk, tensor, buffer) group the rows of the summary.
Each workload runs at least 3 times and until --min-time seconds (default 0.3) have passed (at
most --max-reps times); the best time is printed: compare.py takes the median of the processes.
"""
import argparse
import functools
import os
import re
import shutil
import sys
import time

import numpy as np

import blosc2

# The objects of the modules imported so far go to the collector's permanent generation, so
# that the garbage collections the workloads trigger do not walk them. python-blosc2 imports
# optional packages when they are installed (httpx, and with it click, rich and pygments, in
# the venv built for python-blosc2's test suite, which the wheel's venv lacks): 44,742 objects
# after `import blosc2` against 39,283, and with them more time in every full collection
# (gc_collect_main, visit_decref: 1,527 samples of libpython against 890 in 6 loops of
# SChunk.append_data, the libraries' own 1,580 against 1,547). Frozen, both sides collect the
# same workload objects.
import gc  # noqa: E402

gc.collect()
gc.freeze()

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
from mapped_libblosc2 import mapped_libblosc2  # noqa: E402

try:  # python-blosc2 evaluates some expressions with numexpr: give it the same thread count
    import numexpr
except ImportError:  # pragma: no cover
    numexpr = None


# --- datasets --------------------------------------------------------------------------------


def make_data(dtype, shape, seed):
    """Values that compress as measurements do: a repeating ramp plus a little noise."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    ramp = np.arange(n, dtype=np.int64) % 1013
    if np.dtype(dtype).kind == "f":
        x = ramp * 0.25 + rng.normal(0, 1e-3, n).round(3)
    elif np.dtype(dtype) == np.uint8:
        x = (ramp % 251) // 4 + rng.integers(0, 3, n)
    else:
        x = ramp * 3 + rng.integers(0, 4, n)
    return x.astype(dtype).reshape(shape)


CODECS = {"lz4": blosc2.Codec.LZ4, "zstd": blosc2.Codec.ZSTD, "blosclz": blosc2.Codec.BLOSCLZ}


class Dataset:
    """An array and how it is compressed. With codec None, python-blosc2's defaults as a user
    who passes no parameters and sets no thread count gets them (its codec and level, and
    blosc2.nthreads threads, while the C library's global count stays its own default); such a
    dataset runs only the ops named in `ops`, and first in the process (see DATASETS)."""

    def __init__(self, name, dtype, shape, codec, clevel, nthreads, chunks=None, blocks=None,
                 filt=blosc2.Filter.SHUFFLE, ops=None):
        self.name, self.dtype, self.shape, self.nthreads = name, np.dtype(dtype), shape, nthreads
        self.chunks, self.blocks, self.ops = chunks, blocks, ops
        if codec is None:
            self.cparams, self.dparams = blosc2.CParams(), blosc2.DParams()
            self.kw_nochunks = {}
        else:
            self.cparams = blosc2.CParams(codec=CODECS[codec], clevel=clevel, nthreads=nthreads,
                                          typesize=self.dtype.itemsize, filters=[filt], filters_meta=[0])
            self.dparams = blosc2.DParams(nthreads=nthreads)
            self.kw_nochunks = dict(cparams=self.cparams, dparams=self.dparams)
        self.kw = dict(self.kw_nochunks)
        if chunks is not None:
            self.kw.update(chunks=chunks, blocks=blocks)

    # the data and the arrays are made when a workload first needs them (not timed)
    @functools.cached_property
    def A(self):
        return make_data(self.dtype, self.shape, 0)

    @functools.cached_property
    def B(self):
        return make_data(self.dtype, self.shape, 1)[::-1].copy()

    @functools.cached_property
    def a(self):
        return self.array(self.A)

    @functools.cached_property
    def b(self):
        return self.array(self.B)

    @functools.cached_property
    def thr(self):
        return self.A.dtype.type(np.quantile(self.A, 0.8))

    def enter(self):
        """Thread counts for what follows (python-blosc2's own and numexpr's); none set for the
        defaults' dataset."""
        if self.nthreads is None:
            return
        blosc2.set_nthreads(self.nthreads)
        if numexpr is not None:
            numexpr.set_num_threads(self.nthreads)

    def array(self, x, **extra):
        return blosc2.asarray(x, **self.kw, **extra)


DATASETS = [
    # python-blosc2 as a user who sets nothing runs it: first, so that no set_nthreads has run
    # in the process (python-blosc2 then reads with blosc2.nthreads threads through contexts of
    # its own, not the C library's global count; open_read took one thread on ours, 2026-12-07)
    Dataset("f64-2d-defaults", np.float64, (2000, 2000), None, None, None,
            ops={"asarray", "to_numpy", "sum", "sum_axis0", "expr_compute", "slice_box", "save", "open_read",
                 "fill_rows", "schunk_append", "schunk_decompress_all"}),
    # the array of python-blosc2's tutorials: 32 MB of float64, explicit chunks and blocks
    Dataset("f64-2d-lz4-t2", np.float64, (2000, 2000), "lz4", 5, 2, (500, 500), (100, 100)),
    # python-blosc2's automatic chunks and blocks
    # the others of about 8 MB
    Dataset("f64-2d-zstd-t1", np.float64, (1000, 1000), "zstd", 1, 1),
    Dataset("f32-2d-blosclz-t2", np.float32, (1500, 1500), "blosclz", 5, 2),
    Dataset("i32-3d-lz4-t1", np.int32, (32, 256, 256), "lz4", 5, 1),
    Dataset("u8-1d-zstd-t2", np.uint8, (8_000_000,), "zstd", 3, 2, filt=blosc2.Filter.BITSHUFFLE),
    Dataset("f64-1d-blosclz-t1", np.float64, (1_000_000,), "blosclz", 5, 1),
    # a small array (one 80 KB chunk): what each call costs beyond its data
    Dataset("f64-2d-small-zstd-t1", np.float64, (100, 100), "zstd", 5, 1),
]


# --- checks ----------------------------------------------------------------------------------


def close(ds, got, want, atol=0.0):
    """Equal for integers; for floats, within what summing in another order can change."""
    got = np.asarray(got[()] if isinstance(got, blosc2.NDArray) else got)
    want = np.asarray(want)
    if got.shape != want.shape:
        return False
    if ds.dtype.kind in "iu" and want.dtype.kind in "iu":
        return np.array_equal(got, want)
    rtol = 1e-4 if ds.dtype == np.float32 else 1e-9
    return np.allclose(got, want, rtol=rtol, atol=atol)


def equal(got, want):
    got = got[()] if isinstance(got, blosc2.NDArray) else got
    return np.array_equal(np.asarray(got), want)


# --- the workloads ---------------------------------------------------------------------------


def workloads(ds, work):
    """(family, op, function, check) of every workload of a dataset, in running order. Nothing is
    computed here: the arrays are made (untimed) when a workload first uses them."""
    nd, kind, shape = len(ds.shape), ds.dtype.kind, ds.shape
    rows = []

    def add(family, op, fn, check=None):
        if ds.ops is None or op in ds.ops:
            rows.append((family, op, fn, check))

    add("convert", "asarray", lambda: ds.array(ds.A), lambda r: r.shape == shape)
    add("convert", "to_numpy", lambda: ds.a[:], lambda r: equal(r, ds.A))

    # reductions, of the whole array and along an axis
    add("reduce", "sum", lambda: blosc2.sum(ds.a), lambda r: close(ds, r, ds.A.sum()))
    add("reduce", "mean", lambda: blosc2.mean(ds.a), lambda r: close(ds, r, ds.A.mean(dtype=np.float64)))
    add("reduce", "max", lambda: blosc2.max(ds.a), lambda r: close(ds, r, ds.A.max()))
    add("reduce", "min", lambda: ds.a.min(), lambda r: close(ds, r, ds.A.min()))
    if kind == "f":
        add("reduce", "std", lambda: blosc2.std(ds.a), lambda r: close(ds, r, ds.A.std(dtype=np.float64)))
    add("reduce", "sum_axis0", lambda: blosc2.sum(ds.a, axis=0), lambda r: close(ds, r, ds.A.sum(axis=0)))
    if nd > 1:
        last = nd - 1
        add("reduce", "max_axis_last", lambda: blosc2.max(ds.a, axis=last),
            lambda r: close(ds, r, ds.A.max(axis=last)))
        add("reduce", "mean_axis_last", lambda: blosc2.mean(ds.a, axis=last),
            lambda r: close(ds, r, ds.A.mean(axis=last, dtype=np.float64)))

    # expressions
    if kind == "f":
        add("expr", "expr_compute", lambda: ((ds.a + ds.b * 2) / 3).compute(),
            lambda r: close(ds, r, (ds.A + ds.B * 2) / 3))
        add("expr", "expr_func", lambda: (blosc2.sin(ds.a) + blosc2.cos(ds.b)).compute(),
            lambda r: close(ds, r, np.sin(ds.A) + np.cos(ds.B), atol=1e-5))
        add("expr", "expr_sum", lambda: ((ds.a * 2 + ds.b) ** 2).sum(),
            lambda r: close(ds, r, ((ds.A * 2 + ds.B) ** 2).sum()))
        add("expr", "lazyexpr_string", lambda: blosc2.lazyexpr("a * b + 1", {"a": ds.a, "b": ds.b}).compute(),
            lambda r: close(ds, r, ds.A * ds.B + 1))
    else:
        add("expr", "expr_compute", lambda: (ds.a + ds.b * 2).compute(), lambda r: equal(r, ds.A + ds.B * 2))
        add("expr", "expr_sum", lambda: (ds.a + ds.b).sum(), lambda r: close(ds, r, (ds.A + ds.B).sum()))
    # filters
    add("where", "where_filter", lambda: ds.a[ds.a > ds.thr].compute(),
        lambda r: equal(np.sort(r[:]), np.sort(ds.A[ds.A > ds.thr])))
    add("where", "where_3arg", lambda: blosc2.where(ds.a > ds.thr, ds.a, ds.b).compute(),
        lambda r: equal(r, np.where(ds.A > ds.thr, ds.A, ds.B)))

    # slicing
    if nd == 1:
        n = shape[0]
        rng_ix = slice(n // 3, n // 3 + n // 50)
        step_ix = slice(5, n // 4, 7)
        idx = [i * 7919 % n for i in range(200)]
        add("slice", "slice_range", lambda: ds.a[rng_ix], lambda r: equal(r, ds.A[rng_ix]))
        add("slice", "slice_step", lambda: ds.a[step_ix], lambda r: equal(r, ds.A[step_ix]))
    else:
        s0, s1 = shape[0], shape[1]
        rows_ix = (slice(s0 // 2, s0 // 2 + max(1, s0 // 200)),)
        col_ix = (slice(None), s1 * 2 // 5) + (slice(None),) * (nd - 2)
        box_ix = tuple(slice(s // 16, s // 16 + s * 5 // 16) for s in shape)
        idx = [tuple(i * p % s for s, p in zip(shape, (7, 13, 17))) for i in range(200)]
        add("slice", "slice_rows", lambda: ds.a[rows_ix], lambda r: equal(r, ds.A[rows_ix]))
        add("slice", "slice_col", lambda: ds.a[col_ix], lambda r: equal(r, ds.A[col_ix]))
        add("slice", "slice_box", lambda: ds.a[box_ix], lambda r: equal(r, ds.A[box_ix]))
        add("slice", "slice_ndarray", lambda: ds.a.slice(box_ix), lambda r: equal(r, ds.A[box_ix]))
    add("slice", "getitem_scalar_x200", lambda: [ds.a[ix] for ix in idx],
        lambda r: all(r[k] == ds.A[ix] for k, ix in enumerate(idx)))
    # every 7th index of the first axis (an orthogonal selection, item by item before 13b06cd:
    # 0.72 of the wheel's speed on a 1000 x 1000 float64)
    take_ix = np.arange(0, shape[0], 7)
    add("slice", "take", lambda: blosc2.take(ds.a, take_ix, axis=0),
        lambda r: equal(r[...], np.take(ds.A, take_ix, axis=0)))

    # files
    path = os.path.join(work, f"{ds.name}.b2nd")

    def save():
        blosc2.remove_urlpath(path)
        return ds.a.save(urlpath=path, contiguous=True)

    add("file", "save", save)

    def open_read():
        if not os.path.exists(path):  # when the save row is not selected
            save()
        return blosc2.open(path)[:]

    add("file", "open_read", open_read, lambda r: equal(r, ds.A))
    # a few items of a file just opened (a few blocks of two chunks where the first axis
    # allows: the reading threads started and ended with the array before e067b35)
    small_ix = (slice(shape[0] // 3, shape[0] // 3 + 1),) + tuple(slice(0, min(s, 100)) for s in shape[1:])

    def open_small():
        if not os.path.exists(path):
            save()
        return blosc2.open(path)[small_ix]

    add("file", "open_small", open_small, lambda r: equal(r, ds.A[small_ix]))
    if nd > 1:
        # 8 x 8 (x 8) chunks, rewritten one slab at a time, as a program filling a file does
        fchunks = tuple(max(1, s // 8) for s in shape)
        fblocks = tuple(max(1, c // 4) for c in fchunks)
        c0, c1 = fchunks[0], fchunks[1]

        def fill(name, order):
            q = os.path.join(work, name)
            blosc2.remove_urlpath(q)
            z = blosc2.zeros(shape, dtype=ds.dtype, chunks=fchunks, blocks=fblocks, urlpath=q, **ds.kw_nochunks)
            for ix in order:
                z[ix] = np.ascontiguousarray(ds.A[ix])
            return blosc2.open(q)[:]

        by_rows = [(slice(i, i + c0),) for i in range(0, shape[0], c0)]
        by_cols_rev = [(slice(None), slice(j, j + c1)) for j in reversed(range(0, shape[1], c1))]
        # one file per dataset: a file left by an earlier dataset has other shapes and dtype
        upd = os.path.join(work, f"upd-{ds.name}.b2nd")

        def update_40():
            if not os.path.exists(upd):  # made once, untimed by the best of the runs
                blosc2.asarray(ds.A, chunks=fchunks, blocks=fblocks, urlpath=upd, **ds.kw_nochunks)
            z = blosc2.open(upd, mode="a")
            for k in range(40):
                i, j = (k * 7 % 8) * c0, (k * 3 % 8) * c1
                z[i:i + c0, j:j + c1] = ds.A[i:i + c0, j:j + c1] + k
            return z[:c0, :c1]

        add("file", "fill_rows", lambda: fill("fill.b2nd", by_rows), lambda r: equal(r, ds.A))
        add("file", "fill_cols_rev", lambda: fill("fillc.b2nd", by_cols_rev), lambda r: equal(r, ds.A))
        # the corner chunk was last written by k = 32
        add("file", "update_40", update_40, lambda r: equal(r, ds.A[:c0, :c1] + 32))

    # new arrays from others: copies, concatenation and stacking (chunks that line up are
    # copied as they are), new axes, constructors. On small arrays these are the library's
    # per-array cost (python-blosc2's stack of two 32 MB arrays: 5-6 ms on ours against 1.1
    # until b143e36, fresh heap faulted in for every chunk copy).
    add("build", "copy", lambda: ds.a.copy(), lambda r: equal(r[...], ds.A))
    add("build", "concat", lambda: blosc2.concat([ds.a, ds.b], axis=0),
        lambda r: equal(r[...], np.concatenate([ds.A, ds.B], axis=0)))
    add("build", "stack", lambda: blosc2.stack([ds.a, ds.b], axis=0),
        lambda r: equal(r[...], np.stack([ds.A, ds.B], axis=0)))
    add("build", "expand_dims", lambda: blosc2.expand_dims(ds.a, axis=0),
        lambda r: r.shape == (1,) + shape and equal(r[0, ...], ds.A))
    add("build", "zeros", lambda: blosc2.zeros(shape, dtype=ds.dtype, **ds.kw),
        lambda r: r.shape == shape and not np.any(r[...]))

    # super-chunks, tensors, buffers
    csize = 1 << 20
    cache = {}

    def raw():
        if "raw" not in cache:
            cache["raw"] = ds.A.tobytes()
        return cache["raw"]

    def schunk_append():
        s = blosc2.SChunk(chunksize=csize, **ds.kw_nochunks)
        r = raw()
        for k in range(0, len(r), csize):
            s.append_data(r[k:k + csize])
        return s

    def sch():
        if "sch" not in cache:
            cache["sch"] = schunk_append()
        return cache["sch"]

    isz = ds.dtype.itemsize
    lo = int(np.prod(shape)) // 3
    # 64 KiB: c-blosc2 3.3.5 (the wheel's) returns wrong bytes for some unaligned slices of
    # 256 KiB and more with one thread (e.g. 32768 items from 333333 of f64-2d-zstd-t1)
    hi = lo + (1 << 16) // isz
    add("schunk", "schunk_append", schunk_append, lambda r: r.nbytes == len(raw()))
    add("schunk", "schunk_decompress_all", lambda: b"".join(sch().decompress_chunk(i) for i in range(sch().nchunks)),
        lambda r: r == raw())
    add("schunk", "schunk_get_slice", lambda: sch().get_slice(lo, hi), lambda r: r == raw()[lo * isz:hi * isz])
    add("tensor", "pack_unpack_tensor", lambda: blosc2.unpack_tensor(blosc2.pack_tensor(ds.A, cparams=ds.cparams)),
        lambda r: equal(r, ds.A))
    add("buffer", "compress2_decompress2",
        lambda: blosc2.decompress2(blosc2.compress2(raw()[:4 << 20], cparams=ds.cparams), dparams=ds.dparams),
        lambda r: r == raw()[:4 << 20])
    add("buffer", "compress_decompress",
        lambda: blosc2.decompress(blosc2.compress(raw()[:4 << 20], typesize=isz, clevel=ds.cparams.clevel,
                                                  codec=ds.cparams.codec)),
        lambda r: r == raw()[:4 << 20])
    return rows


def timed(fn, min_time, max_reps):
    """Best time of at least 3 runs (2 when one takes more than half a second), and more runs
    while min_time is not spent."""
    best, spent, reps, result = float("inf"), 0.0, 0, None
    while reps < (2 if best > 0.5 else 3) or (spent < min_time and reps < max_reps):
        t = time.perf_counter()
        r = fn()
        dt = time.perf_counter() - t
        if reps == 0:
            result = r
        del r
        best, spent, reps = min(best, dt), spent + dt, reps + 1
    return best * 1e3, result


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("workdir")
    ap.add_argument("--only", default="", help="run the rows whose OP@DATASET name matches this regex")
    ap.add_argument("--list", action="store_true", help="print the row names and exit")
    ap.add_argument("--min-time", type=float, default=0.3)
    ap.add_argument("--max-reps", type=int, default=20)
    ap.add_argument("--lockstep", type=int, default=0, metavar="ROUNDS",
                    help="driven by compare.py: before each row print 'wait FAMILY NAME', then time it "
                         "ROUNDS times, each after a line on stdin, printing a row line each time")
    args = ap.parse_args()
    only = re.compile(args.only)
    print("lib", " ".join(mapped_libblosc2()) or "none", flush=True)
    print("version", blosc2.__version__, blosc2.blosclib_version.split()[0], flush=True)
    work = os.path.join(args.workdir, f"w{os.getpid()}")
    os.makedirs(work, exist_ok=True)
    wrong = 0
    try:
        for ds in DATASETS:
            rows = [r for r in workloads(ds, work) if only.search(f"{r[1]}@{ds.name}")]
            if rows and not args.list:
                ds.enter()
            for family, op, fn, check in rows:
                name = f"{op}@{ds.name}"
                if args.list:
                    print("row", family, name, flush=True)
                    continue
                if args.lockstep:
                    print("wait", family, name, flush=True)
                for r in range(max(1, args.lockstep)):
                    if args.lockstep and not sys.stdin.readline():
                        sys.exit(2)
                    ms, result = timed(fn, args.min_time, args.max_reps)
                    if r == 0 and check is not None and not check(result):
                        print("row", family, name, "WRONG", flush=True)
                        wrong += 1
                    else:
                        print("row", family, name, f"{ms:.3f}", flush=True)
                    del result
    finally:
        shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if wrong else 0)


if __name__ == "__main__":
    main()
