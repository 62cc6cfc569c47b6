#!/usr/bin/env python3
"""Time python-blosc2 on rblosc2 against python-blosc2 on c-blosc2, side by side.

Usage: bench/python/compare.py --ours PY --ref PY --prefix PREFIX [--pairs N] [--only REGEX]
                               [--json FILE] [--markdown] [--min-time S]
       bench/python/compare.py --from-json FILE [--markdown]

  --ours PY      the python (or the venv directory) of a python-blosc2 built against rblosc2
                 (USE_SYSTEM_BLOSC2; scripts/python-downstream.sh builds one in its cache dir)
  --ref PY       the python (or venv) of the official python-blosc2 wheel (the same version),
                 whose extension carries c-blosc2
  --prefix DIR   the rblosc2 install (`make install PREFIX=DIR`): ours runs with
                 LD_LIBRARY_PATH=DIR/lib, and must map DIR's libblosc2.so.9 and no other
  --pairs N      process pairs (default 7): ours then the reference in even pairs, the
                 reference then ours in odd ones; each process runs every selected workload
                 of bench/python/workloads.py (each row: its best time in that process)
  --rounds R     (default 2) the two processes of a pair live at once and take turns row by
                 row: each row is timed R times by each side, alternately (A B A B), while the
                 other side waits idle, and a side's time is its best; a slow phase of the host
                 (seconds long on the VMs here) then hits both sides of a row alike instead of
                 every row of one process. 0: the processes of a pair run one after the other
  --only REGEX   the rows whose OP@DATASET name matches (`--only 'sum@|slice_'`)
  --json FILE    also write every time measured; --from-json FILE prints the tables again
  --markdown     tables in Markdown (for docs/PERFORMANCE.md)

Prints a row per workload: the median over the pairs of ours' and of the reference's times (ms)
and the median of the pairs' ratios, reference time / ours (above 1: ours is faster), with
their spread; then the geometric mean of the ratios, each family's min / median / max, and the
rows under 1.00. A row whose result differs from numpy's on either side is WRONG (exit status 1).
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def python_of(p):
    if os.path.isdir(p):
        p = os.path.join(p, "bin", "python")
    if not os.access(p, os.X_OK):
        sys.exit(f"compare.py: {p} is not an executable python (or a venv directory)")
    return p


def libdir_of(prefix):
    for d in ("lib", "lib64"):
        lib = os.path.join(prefix, d, "libblosc2.so.9")
        if os.path.exists(lib):
            return os.path.join(prefix, d), os.path.realpath(lib)
    sys.exit(f"compare.py: no libblosc2.so.9 under {prefix}/lib or lib64 (make install PREFIX=...)")


def run_side(side, python, env, args, workdir):
    cmd = [python, "-B", os.path.join(HERE, "workloads.py"), workdir, "--min-time", str(args.min_time)]
    if args.only:
        cmd += ["--only", args.only]
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=workdir)
    lib, rows, version = None, {}, None
    for line in p.stdout.splitlines():
        f = line.split()
        if f[:1] == ["lib"]:
            lib = f[1:]
        elif f[:1] == ["version"]:
            version = " ".join(f[1:])
        elif f[:1] == ["row"]:
            rows[f[2]] = (f[1], None if f[3] == "WRONG" else float(f[3]))
    if p.returncode not in (0, 1) or not rows:
        sys.stderr.write(p.stderr[-3000:])
        sys.exit(f"compare.py: the {side} process failed (status {p.returncode})")
    return lib, version, rows


def start_side(python, env, args, workdir):
    cmd = [python, "-B", os.path.join(HERE, "workloads.py"), workdir, "--min-time", str(args.min_time),
           "--lockstep", str(args.rounds)]
    if args.only:
        cmd += ["--only", args.only]
    err = tempfile.TemporaryFile(mode="w+")
    p = subprocess.Popen(cmd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err, text=True,
                         cwd=workdir, bufsize=1)
    return p, err


def run_pair_lockstep(order, py, env, args, workdir):
    """Both sides of a pair at once, row by row in turns (see --rounds)."""
    procs = {side: start_side(py[side], env[side], args, workdir) for side in order}
    head = {side: {} for side in order}
    rows = {side: {} for side in order}

    def line(side):
        p, err = procs[side]
        got = p.stdout.readline()
        if not got:
            p.wait()
            err.seek(0)
            sys.stderr.write(err.read()[-3000:])
            sys.exit(f"compare.py: the {side} process ended early (status {p.returncode})")
        return got.split()

    for side in order:
        while True:
            f = line(side)
            if f[0] in ("lib", "version"):
                head[side][f[0]] = f[1:]
            if f[0] == "version":
                break
    while True:
        waits = {}
        for side in order:
            got = procs[side][0].stdout.readline().split()
            waits[side] = got[1:3] if got[:1] == ["wait"] else None
        if all(w is None for w in waits.values()):
            break
        if len({tuple(w or ()) for w in waits.values()}) != 1:
            sys.exit(f"compare.py: the sides disagree on the next row: {waits}")
        fam, name = waits[order[0]]
        best = {side: math.inf for side in order}
        for _ in range(args.rounds):
            for side in order:
                p = procs[side][0]
                p.stdin.write("go\n")
                p.stdin.flush()
                f = line(side)
                if f[:1] != ["row"] or f[2] != name:
                    sys.exit(f"compare.py: the {side} process answered {f} for {name}")
                best[side] = None if f[3] == "WRONG" or best[side] is None else min(best[side], float(f[3]))
        for side in order:
            rows[side][name] = (fam, best[side])
    for side in order:
        p, err = procs[side]
        p.stdin.close()
        if p.wait() not in (0, 1):
            err.seek(0)
            sys.stderr.write(err.read()[-3000:])
            sys.exit(f"compare.py: the {side} process failed (status {p.returncode})")
    return {side: (head[side].get("lib"), " ".join(head[side].get("version", [])), rows[side]) for side in order}


def check_libs(ours_lib, ref_lib, want):
    if ours_lib != [want]:
        sys.exit(f"compare.py: WRONG LIBRARY: ours maps {ours_lib}, not {want}")
    if want in (ref_lib or []):
        sys.exit(f"compare.py: WRONG LIBRARY: the reference maps {want}, ours")


def measure(args):
    ours_py, ref_py = python_of(args.ours), python_of(args.ref)
    libdir, want = libdir_of(os.path.abspath(args.prefix))
    base = {k: v for k, v in os.environ.items() if k != "LD_LIBRARY_PATH"}
    env = {
        "ours": dict(base, LD_LIBRARY_PATH=libdir + (":" + os.environ["LD_LIBRARY_PATH"] if os.environ.get("LD_LIBRARY_PATH") else "")),
        "ref": base,
    }
    py = {"ours": ours_py, "ref": ref_py}
    data = {"pairs": [], "rounds": args.rounds, "load_before": open("/proc/loadavg").read().split()[:3], "prefix": want}
    with tempfile.TemporaryDirectory(prefix="pybench-") as workdir:
        for i in range(args.pairs):
            order = ("ours", "ref") if i % 2 == 0 else ("ref", "ours")
            pair = {}
            if args.rounds > 0:
                t = time.time()
                for side, (lib, version, rows) in run_pair_lockstep(order, py, env, args, workdir).items():
                    pair[side] = rows
                    data.setdefault("libs", {})[side] = lib
                    data.setdefault("versions", {})[side] = version
                print(f"pair {i + 1}/{args.pairs} ({order[0]} first, {args.rounds} rounds a row): "
                      f"{len(rows)} rows, {time.time() - t:.0f} s, load {open('/proc/loadavg').read().split()[0]}",
                      file=sys.stderr, flush=True)
            for side in order if args.rounds == 0 else ():
                t = time.time()
                lib, version, rows = run_side(side, py[side], env[side], args, workdir)
                pair[side] = rows
                data.setdefault("libs", {})[side] = lib
                data.setdefault("versions", {})[side] = version
                print(f"pair {i + 1}/{args.pairs} {side}: {len(rows)} rows, {time.time() - t:.0f} s, "
                      f"load {open('/proc/loadavg').read().split()[0]}", file=sys.stderr, flush=True)
            check_libs(data["libs"]["ours"], data["libs"]["ref"], want)
            data["pairs"].append(pair)
    data["load_after"] = open("/proc/loadavg").read().split()[:3]
    return data


def table(data, markdown):
    names, family = [], {}
    for pair in data["pairs"]:
        for side in ("ours", "ref"):
            for name, (fam, _) in pair[side].items():
                if name not in family:
                    family[name] = fam
                    names.append(name)
    out, results, wrong = [], [], []
    for name in names:
        ours = [p["ours"].get(name, (None, None))[1] for p in data["pairs"]]
        ref = [p["ref"].get(name, (None, None))[1] for p in data["pairs"]]
        if any(t is None for t in ours + ref):
            sides = [s for s, ts in (("ours", ours), ("ref", ref)) if any(t is None for t in ts)]
            wrong.append(f"{name} ({' and '.join(sides)})")
            continue
        ratios = [r / o for o, r in zip(ours, ref)]
        results.append((name, family[name], statistics.median(ours), statistics.median(ref),
                        statistics.median(ratios), min(ratios), max(ratios)))
    v = data.get("versions", {})
    head = (f"python-blosc2 {v.get('ours', '?')} on {data.get('prefix')} (ours) vs the wheel's "
            f"({v.get('ref', '?')}, c-blosc2 linked into its extension); {len(data['pairs'])} process pairs; "
            f"load average before {' '.join(data.get('load_before', []))}, after {' '.join(data.get('load_after', []))}")
    if markdown:
        out += [head, "", "| row | family | ms ours | ms ref | ref/ours | pairs' min..max |",
                "|---|---|---:|---:|---:|---|"]
        for n, f, o, r, m, lo, hi in results:
            out.append(f"| {n} | {f} | {o:.2f} | {r:.2f} | {'**' if m < 1 else ''}{m:.2f}{'**' if m < 1 else ''} | {lo:.2f}..{hi:.2f} |")
    else:
        out += [head, f"{'row':40} {'family':8} {'ms ours':>10} {'ms ref':>10} {'ref/ours':>9}  pairs' min..max"]
        for n, f, o, r, m, lo, hi in results:
            out.append(f"{n:40} {f:8} {o:10.2f} {r:10.2f} {m:9.2f}  {lo:.2f}..{hi:.2f}{'  <1' if m < 1 else ''}")
    out.append("")
    if results:
        g = math.exp(statistics.fmean(math.log(x[4]) for x in results))
        out.append(f"geometric mean of ref/ours: {g:.2f} over {len(results)} rows")
        fams = sorted({x[1] for x in results})
        if markdown:
            out += ["", "| family | rows | min | median | max | geo. mean |", "|---|---:|---:|---:|---:|---:|"]
        for fam in fams:
            rs = [x[4] for x in results if x[1] == fam]
            gm = math.exp(statistics.fmean(math.log(r) for r in rs))
            if markdown:
                out.append(f"| {fam} | {len(rs)} | {min(rs):.2f} | {statistics.median(rs):.2f} | {max(rs):.2f} | {gm:.2f} |")
            else:
                out.append(f"  {fam:8} {len(rs):3} rows  min {min(rs):.2f}  median {statistics.median(rs):.2f}  "
                           f"max {max(rs):.2f}  geomean {gm:.2f}")
        under = [x for x in results if x[4] < 1]
        out.append("")
        out.append(f"rows under 1.00: {len(under)}" + ("" if not under else ": " + ", ".join(
            f"{x[0]} {x[4]:.2f}" for x in sorted(under, key=lambda x: x[4]))))
    if wrong:
        out.append(f"WRONG (a result differs from numpy's): {', '.join(wrong)}")
    return "\n".join(out), bool(wrong)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ours")
    ap.add_argument("--ref")
    ap.add_argument("--prefix")
    ap.add_argument("--pairs", type=int, default=7)
    ap.add_argument("--only", default="")
    ap.add_argument("--min-time", type=float, default=0.3)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--json")
    ap.add_argument("--from-json")
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    if args.from_json:
        with open(args.from_json) as f:
            data = json.load(f)
    else:
        if not (args.ours and args.ref and args.prefix):
            ap.error("--ours, --ref and --prefix are needed (or --from-json)")
        data = measure(args)
        if args.json:
            with open(args.json, "w") as f:
                json.dump(data, f, indent=1)
    text, wrong = table(data, args.markdown)
    print(text)
    sys.exit(1 if wrong else 0)


if __name__ == "__main__":
    main()
