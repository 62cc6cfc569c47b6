"""Round trips of the Blosc2 plugin wheels, driven by scripts/plugin-wheels.sh (read its header).

Runs inside one venv (ours: python-blosc2 built on rblosc2; or the reference: the official
wheel). Subcommands:

  info                 which blosc2 and which libblosc2 files this process maps (one JSON line);
                       with RBLOSC2_PLUGIN_EXPECT_LIB set, fails unless that is the only one.
  write DIR GROUP      compresses every case of GROUP (openzl, j2k-grok, htj2k-grok,
                       htj2k-openhtj2k: a J2K plugin takes one backend a process) with its plugin
                       into DIR (a .b2nd or .b2frame file per case, the data it must give back as
                       a .npy), checking each in-process (compress, decompress, compare), and
                       lists the cases written in DIR/cases-GROUP.json.
  read DIR GROUP       opens every case of GROUP another process wrote in DIR and compares what
                       it decodes with the .npy.
  chunks DIR_A DIR_B GROUP  compares the compressed chunks of the cases both DIRs hold, byte for
                       byte (informative: the same plugin on the same data and parameters).
  btune DIR            an array written with the btune tuner: round trip, and what the tuner
                       chose for each chunk (codec, filters, blocksize from the chunk headers),
                       to DIR/btune-choices.json.
  btune-read DIR       reads the array `btune DIR` wrote (in another process) and compares.
  choices FILE OUT     the choices of FILE's chunks, as JSON, to OUT.

Each line printed is `ok NAME ...` or `FAIL NAME: reason`; the exit status is 1 when a line
is FAIL.
"""

import json
import os
import sys
import traceback
from pathlib import Path

import numpy as np

import blosc2
from mapped_libblosc2 import mapped_libblosc2  # this script's folder is on sys.path

FAILED = []


def say(ok, name, detail=""):
    if ok:
        print(f"ok {name}{' ' + detail if detail else ''}", flush=True)
    else:
        FAILED.append(name)
        print(f"FAIL {name}: {detail}", flush=True)


# --- the data ---------------------------------------------------------------------------------


def ramp(shape, dtype):
    """Smooth, compressible data of any dtype: a ramp plus a slow wave, wrapped into the type."""
    n = int(np.prod(shape))
    i = np.arange(n, dtype=np.float64)
    dtype = np.dtype(dtype)
    if dtype.kind == "f":
        values = i * 0.25 + 100.0 * np.sin(i / 50.0)
    else:
        info = np.iinfo(dtype)
        span = min(int(info.max) - int(info.min) + 1, 1 << 20)
        values = (i + 40.0 * np.sin(i / 30.0)) % span + max(int(info.min), -(span // 2))
    return values.astype(dtype).reshape(shape)


def image(shape, dtype):
    """A 2-D (or stacked 3-D) image with structure, as the J2K plugins expect."""
    y, x = np.mgrid[0 : shape[-2], 0 : shape[-1]]
    top = 255 if np.dtype(dtype).itemsize == 1 else 4095
    base = top / 2 + top / 4 * np.sin(x / 5.0) + top / 5 * np.cos(y / 7.0) + (x * y) % 17
    planes = [np.clip(base + 3 * k, 0, top) for k in range(int(np.prod(shape[:-2])))]
    return np.stack(planes).reshape(shape).astype(dtype)


# --- the cases --------------------------------------------------------------------------------
# A case: name, plugin, how it is stored ("ndarray" or "schunk"), data maker, NDArray chunks and
# blocks (or the SChunk chunk size in items), cparams (the plugin's codec id filled in later),
# and whether the plugin is lossy there (then the reader compares with what the writer decoded,
# not with the original).


def openzl_cases():
    from blosc2_openzl import OpenZLProfile as P

    profiles = [P.OZLPROF_ZSTD, P.OZLPROF_SH_LZ4, P.OZLPROF_SH_BD_SPLIT_ZSTD, P.OZLPROF_SH_BD_LZ4_CS]
    layouts = [((20000,), (3000,), None), ((120, 90), (50, 40), (10, 40)), ((12, 30, 40), (5, 30, 20), None)]
    dtypes = [np.uint8, np.int16, np.int32, np.uint32, np.int64, np.float32, np.float64]
    for prof in profiles:
        for dt in dtypes:
            for shape, chunks, blocks in layouts:
                name = f"openzl-{prof.name}-{np.dtype(dt).name}-{'x'.join(map(str, shape))}"
                yield dict(name=name, plugin="openzl", store="ndarray", shape=shape, dtype=np.dtype(dt).str,
                           chunks=chunks, blocks=blocks, data="ramp",
                           cparams=dict(codec="OPENZL", codec_meta=prof.value, filters=[]))
    # super-chunks without NDArray metadata, with a typesize and a shuffle filter before the codec
    for dt in (np.int32, np.float64):
        for prof in (P.OZLPROF_SH_ZSTD, P.OZLPROF_SH_BD_SPLIT_LZ4):
            name = f"openzl-schunk-{prof.name}-{np.dtype(dt).name}"
            yield dict(name=name, plugin="openzl", store="schunk", shape=(50000,), dtype=np.dtype(dt).str,
                       chunkitems=12000, data="ramp",
                       cparams=dict(codec="OPENZL", codec_meta=prof.value,
                                    filters=["SHUFFLE"], typesize=np.dtype(dt).itemsize))


def j2k_cases(plugin):
    # lossless (the default) and one lossy setting (codec_meta: the rate)
    layouts = [((64, 64), (64, 64), (64, 64)), ((96, 128), (48, 64), (48, 64)),
               ((3, 40, 56), (1, 40, 56), (1, 40, 56))]
    backends = ["grok"] if plugin == "j2k" else ["grok", "openhtj2k"]
    for backend in backends:
        for dt in (np.uint8, np.uint16):
            for shape, chunks, blocks in layouts:
                name = f"{plugin}-{backend}-{np.dtype(dt).name}-{'x'.join(map(str, shape))}"
                yield dict(name=name, plugin=plugin, backend=backend, store="ndarray", shape=shape,
                           dtype=np.dtype(dt).str, chunks=chunks, blocks=blocks, data="image",
                           cparams=dict(codec=plugin, filters=[], splitmode="NEVER_SPLIT"))
    # lossy: htj2k's grok backend encodes losslessly only (as the plugin's own lossy test knows)
    lossy = "grok" if plugin == "j2k" else "openhtj2k"
    yield dict(name=f"{plugin}-{lossy}-lossy-uint16-128x128", plugin=plugin, backend=lossy,
               store="ndarray", shape=(128, 128), dtype=np.dtype(np.uint16).str, chunks=(128, 128),
               blocks=(128, 128), data="image", lossy=True,
               cparams=dict(codec=plugin, codec_meta=80, filters=[], splitmode="NEVER_SPLIT"))


def group(case):
    """The cases of a group run in one process: a J2K plugin takes its backend once a process."""
    return case["plugin"] + ("-" + case["backend"] if case.get("backend") else "")


GROUPS = ["openzl", "j2k-grok", "htj2k-grok", "htj2k-openhtj2k"]


def all_cases(which=None):
    for case in [*openzl_cases(), *j2k_cases("j2k"), *j2k_cases("htj2k")]:
        if which is None or group(case) == which:
            yield case


# --- plugins ----------------------------------------------------------------------------------


CONFIGURED = {}


def plugin_module(plugin, backend=None):
    """Imports the plugin's package (and picks the J2K backend, which a process can do once,
    before the plugin's first use); returns its codec id."""
    if plugin == "openzl":
        import blosc2_openzl  # noqa: F401  (the library loads it itself, by its print_libpath)

        return blosc2.Codec.OPENZL
    if plugin == "j2k":
        import blosc2_j2k as mod
    elif plugin == "htj2k":
        import blosc2_htj2k as mod
    else:
        raise ValueError(plugin)
    mod.register_codec()
    if backend and plugin not in CONFIGURED:
        mod.configure(backend=backend)
        CONFIGURED[plugin] = backend
    elif backend and CONFIGURED[plugin] != backend:
        raise RuntimeError(f"{plugin} already runs the {CONFIGURED[plugin]} backend in this process")
    return mod.CODEC_ID


def make_cparams(case, codec):
    cp = dict(case["cparams"])
    cp["codec"] = codec
    cp["filters"] = [getattr(blosc2.Filter, f) if isinstance(f, str) else f for f in cp["filters"]]
    if "splitmode" in cp:
        cp["splitmode"] = getattr(blosc2.SplitMode, cp["splitmode"])
    cp.setdefault("nthreads", 1)
    return cp


def case_file(directory, case):
    return Path(directory) / (case["name"] + (".b2nd" if case["store"] == "ndarray" else ".b2frame"))


def read_back(path, case):
    obj = blosc2.open(str(path), mode="r")
    if case["store"] == "ndarray":
        return obj[...]
    return np.frombuffer(obj[:], dtype=np.dtype(case["dtype"])).reshape(case["shape"])


def compare(name, got, want, detail=""):
    if got.shape != want.shape or got.dtype != want.dtype:
        say(False, name, f"decoded {got.dtype}{got.shape}, expected {want.dtype}{want.shape}")
    elif not np.array_equal(got, want):
        bad = np.argwhere(got != want)
        say(False, name, f"{len(bad)} items differ, first at {tuple(bad[0])}: {got[tuple(bad[0])]!r} != "
                         f"{want[tuple(bad[0])]!r}")
    else:
        say(True, name, detail)


def write(directory, which):
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for case in all_cases(which):
        name = case["name"]
        try:
            codec = plugin_module(case["plugin"], case.get("backend"))
            cp = make_cparams(case, codec)
            data = (ramp if case["data"] == "ramp" else image)(case["shape"], case["dtype"])
            path = case_file(directory, case)
            if case["store"] == "ndarray":
                arr = blosc2.asarray(data, chunks=case["chunks"], blocks=case["blocks"], cparams=cp,
                                     urlpath=str(path), mode="w")
                decoded = arr[...]
                cratio = arr.schunk.cratio
            else:
                nbytes = case["chunkitems"] * data.itemsize
                sc = blosc2.SChunk(chunksize=nbytes, data=data.tobytes(), urlpath=str(path), mode="w",
                                   cparams=cp)
                decoded = np.frombuffer(sc[:], dtype=data.dtype).reshape(data.shape)
                cratio = sc.cratio
            if case.get("lossy"):
                err = np.abs(decoded.astype(np.int64) - data.astype(np.int64))
                if decoded.shape != data.shape or err.max() > 512 or np.array_equal(decoded, data):
                    say(False, name + " (write)", f"lossy result off: max error {err.max()}")
                    continue
                expected = decoded
            else:
                expected = data
            np.save(directory / (name + ".npy"), expected)
            compare(name + " (write)", decoded, expected, f"cratio {cratio:.2f}")
            if name + " (write)" not in FAILED:
                written.append(case)
        except Exception as exc:  # a plugin error is a failed case, not the end of the run
            say(False, name + " (write)", f"{type(exc).__name__}: {exc}".splitlines()[0])
            if os.environ.get("PLUGIN_WHEELS_TRACEBACK"):
                traceback.print_exc()
    (directory / f"cases-{which}.json").write_text(json.dumps(written, indent=1))


def read(directory, which):
    directory = Path(directory)
    cases = json.loads((directory / f"cases-{which}.json").read_text())
    for case in cases:
        name = case["name"]
        try:
            plugin_module(case["plugin"], case.get("backend"))
            got = read_back(case_file(directory, case), case)
            want = np.load(directory / (name + ".npy"))
            compare(name + " (read)", got, want)
        except Exception as exc:
            say(False, name + " (read)", f"{type(exc).__name__}: {exc}".splitlines()[0])


def chunks(dir_a, dir_b, which):
    a = {c["name"]: c for c in json.loads((Path(dir_a) / f"cases-{which}.json").read_text())}
    b = {c["name"] for c in json.loads((Path(dir_b) / f"cases-{which}.json").read_text())}
    same = differ = 0
    for name in sorted(set(a) & b):
        case = a[name]
        plugin_module(case["plugin"], case.get("backend"))
        # keep the NDArrays alive: their super-chunks are freed with them
        oa = blosc2.open(str(case_file(dir_a, case)), mode="r")
        ob = blosc2.open(str(case_file(dir_b, case)), mode="r")
        sa, sb = getattr(oa, "schunk", oa), getattr(ob, "schunk", ob)
        if sa.nchunks == sb.nchunks and all(sa.get_chunk(i) == sb.get_chunk(i) for i in range(sa.nchunks)):
            same += 1
        else:
            differ += 1
            print(f"note {name}: chunks differ", flush=True)
    print(f"chunks {which}: identical in {same} cases, different in {differ}", flush=True)


# --- btune ------------------------------------------------------------------------------------


def chunk_choice(chunk):
    """What a chunk header says was chosen: codec (flags' compressor format, and the user codec
    id of byte 22 for codecs past the built-in ones), the codec's meta, the filters, the
    blocksize and the typesize."""
    flags = chunk[2]
    compformat = (flags >> 5) & 0x7
    blocksize = int.from_bytes(chunk[8:12], "little")
    filters = tuple(b for b in chunk[16:22] if b)
    if chunk[0] >= 3 and chunk[31] & 0x10:  # a special (zeros, NaN, ...) chunk
        return ("special", chunk[31])
    return (compformat, chunk[22] if compformat == 6 else 0, chunk[23], filters, blocksize, chunk[3])


def choices(path):
    """The chunk choices of a file (see chunk_choice), one per chunk."""
    obj = blosc2.open(str(path), mode="r")
    sc = getattr(obj, "schunk", obj)
    return [chunk_choice(sc.get_chunk(i)) for i in range(sc.nchunks)]


def show_choices(path, out):
    """Writes the chunk choices of a file as JSON to OUT, and a summary line."""
    found = choices(path)
    Path(out).write_text(json.dumps(found))
    distinct = sorted({str(c) for c in found})
    print(f"btune choices ({len(distinct)} distinct over {len(found)} chunks): {'; '.join(distinct)}",
          flush=True)


def btune(directory):
    """An NDArray written to a file with cparams tuner=BTUNE (a plain SChunk with btune dies with
    SIGFPE inside the reference's python-blosc2, so the case is an NDArray). What the tuner
    chose for each chunk goes to DIR/btune-choices.json, for comparing the two sides."""
    import blosc2_btune

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    blosc2_btune.set_params_defaults(tradeoff=0.5, perf_mode=blosc2_btune.PerformanceMode.COMP)
    rng = np.random.default_rng(2024)
    data = np.concatenate([
        rng.integers(0, 10000, 100_000, dtype=np.int64),
        np.arange(100_000, dtype=np.int64) // 7,
        np.linspace(0, 1, 100_000).view(np.int64),
    ])
    path = directory / "btune.b2nd"
    try:
        arr = blosc2.asarray(data, chunks=(5000,), urlpath=str(path), mode="w",
                             cparams={"tuner": blosc2.Tuner.BTUNE})
    except Exception as exc:
        say(False, "btune (write)", f"{type(exc).__name__}: {exc}".splitlines()[0])
        return
    compare("btune (write)", arr[...], data, f"{arr.schunk.nchunks} chunks, cratio {arr.schunk.cratio:.2f}")
    del arr
    np.save(directory / "btune.npy", data)
    show_choices(path, directory / "btune-choices.json")


def btune_read(directory):
    want = np.load(Path(directory) / "btune.npy")
    try:
        arr = blosc2.open(str(Path(directory) / "btune.b2nd"), mode="r")
        compare("btune (read)", arr[...], want)
    except Exception as exc:
        say(False, "btune (read)", f"{type(exc).__name__}: {exc}".splitlines()[0])


def main(argv):
    if not argv:
        print(__doc__)
        return 2
    cmd, args = argv[0], argv[1:]
    if cmd == "info":
        libs = mapped_libblosc2()
        print(json.dumps({"blosc2": blosc2.__version__, "c_blosc2": blosc2.blosclib_version.split()[0],
                          "package": os.path.dirname(blosc2.__file__), "libblosc2": libs}))
        want = os.environ.get("RBLOSC2_PLUGIN_EXPECT_LIB")
        if want and libs != [os.path.realpath(want)]:
            print(f"FAIL info: maps {libs}, expected only {want}")
            return 3
        return 0
    {"write": write, "read": read, "chunks": chunks, "btune": btune, "btune-read": btune_read,
     "choices": show_choices}[cmd](*args)
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
