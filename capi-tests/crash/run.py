#!/usr/bin/env python3
"""Crash test driver (see run.sh): kill a writer right before each of its write-type system
calls, and at random times, then check the frame in fresh processes with ours and with the
reference.

For each writer library (ours, and the reference with --ref-writer) and each scenario (cframe
and sframe x append, update, insdel, meta; cframe x slice): the frame is set up once; a run of the operations
under strace lists the write-type system calls it makes (pwrite64, write, ftruncate, rename,
unlink, an openat that creates or truncates, ...); then for each of them the operations run again
from a fresh copy of the frame, killed by strace's fault injection right before that call; the
acknowledged count is read from the writer's mapped file and the frame is checked by the
checker built against ours and the one built against the reference. Random kills: the writer
runs without strace and gets SIGKILL after a random delay within its usual run time.
"""
import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import time

WRITE_CALLS = ["pwrite64", "pwritev", "pwritev2", "write", "writev", "ftruncate", "truncate",
               "rename", "renameat", "renameat2", "unlink", "unlinkat", "rmdir", "mkdir",
               "mkdirat", "fsync", "fdatasync", "openat", "open", "creat", "fallocate"]
# slice on cframes only: an sframe writes each chunk of a multi-chunk call as its own change.
SCENARIOS = [(k, s) for k in "cs" for s in ("append", "update", "slice", "insdel", "meta")
             if (k, s) != ("s", "slice")]


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def is_write_point(name, args):
    if name in ("openat", "open"):
        return "O_CREAT" in args or "O_TRUNC" in args
    return True


def write_points(trace_path):
    """(syscall, its per-syscall ordinal) of each write-type call in an strace -o file."""
    counts = {}
    points = []
    line_re = re.compile(r"^\d+\s+([a-z0-9_]+)\((.*)$")
    with open(trace_path) as f:
        for line in f:
            m = line_re.match(line)
            if not m or "resumed>" in line:
                continue
            name, args = m.group(1), m.group(2)
            if name not in WRITE_CALLS:
                continue
            counts[name] = counts.get(name, 0) + 1
            if is_write_point(name, args):
                points.append((name, counts[name]))
    return points


class Case:
    def __init__(self, work, writer, checkers, kind, scen, ops):
        self.work, self.writer, self.checkers = work, writer, checkers
        self.kind, self.scen = kind, scen
        self.env = dict(os.environ, CRASH_OPS=str(ops))
        self.name = "cframe" if kind == "c" else "sframe"
        self.pristine = os.path.join(work, "pristine." + ("b2frame" if kind == "c" else "dir"))
        self.path = os.path.join(work, "frame." + ("b2frame" if kind == "c" else "dir"))
        self.ack = os.path.join(work, "ack")

    def fresh(self):
        if os.path.isdir(self.path):
            shutil.rmtree(self.path)
        elif os.path.exists(self.path):
            os.remove(self.path)
        if os.path.isdir(self.pristine):
            shutil.copytree(self.pristine, self.path)
        else:
            shutil.copyfile(self.pristine, self.path)
        with open(self.ack, "wb") as f:
            f.write(b"\0" * 4096)

    def acked(self):
        with open(self.ack, "rb") as f:
            return int.from_bytes(f.read(4), "little")

    def setup(self):
        r = run([self.writer, "setup", self.kind, self.scen, self.pristine], env=self.env)
        if r.returncode != 0:
            sys.exit(f"setup {self.name} {self.scen}: {r.stderr}")

    def ops_cmd(self):
        return [self.writer, "ops", self.kind, self.scen, self.path, self.ack]

    def check(self):
        """Per checker: None when OK, else the reason."""
        acked = str(self.acked())
        out = []
        for c in self.checkers:
            r = run([c, "check", self.kind, self.scen, self.path, acked], env=self.env)
            out.append(None if r.returncode == 0 else (r.stdout.strip() or r.stderr.strip()))
        return out


def tree_bytes(path):
    """The bytes of a frame file, or of every file of an sframe directory, by name."""
    if not os.path.isdir(path):
        with open(path, "rb") as f:
            return {"": f.read()}
    out = {}
    for name in sorted(os.listdir(path)):
        with open(os.path.join(path, name), "rb") as f:
            out[name] = f.read()
    return out


def same_bytes(case, other_writer, label):
    """Exits unless `other_writer`, set up and run the same way, leaves the same bytes."""
    ours = tree_bytes(case.path)
    other = Case(case.work, other_writer, [], case.kind, case.scen, 0)
    other.env = case.env
    other.pristine += ".other"
    other.path += ".other"
    other.setup()
    other.fresh()
    r = run(other.ops_cmd(), env=other.env)
    if r.returncode != 0:
        sys.exit(f"{label}: the other writer failed: {r.stderr}")
    theirs = tree_bytes(other.path)
    if ours != theirs:
        diff = [n for n in sorted(set(ours) | set(theirs)) if ours.get(n) != theirs.get(n)]
        sys.exit(f"{label}: our frame differs from the other writer's: {diff}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--writer", action="append", required=True, help="LABEL=PATH of a writer")
    ap.add_argument("--checker", action="append", required=True, help="LABEL=PATH of a checker")
    ap.add_argument("--work", required=True)
    ap.add_argument("--ops", type=int, default=8)
    ap.add_argument("--random", type=int, default=200, help="random kills per scenario")
    ap.add_argument("--only", default="", help="substring of 'cframe-append' etc.")
    ap.add_argument("--seed", type=int, default=25)
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--same-bytes-as", default="",
                    help="a writer whose uninterrupted frames ours must equal byte for byte")
    a = ap.parse_args()
    writers = [w.split("=", 1) for w in a.writer]
    checkers = [c.split("=", 1) for c in a.checker]
    rng = random.Random(a.seed)
    os.makedirs(a.work, exist_ok=True)
    strace = shutil.which("strace")
    if not strace:
        sys.exit("crash: strace is needed")
    hdr = f"{'writer':8} {'scenario':15} {'points':>6} " + " ".join(
        f"{'bad/' + lbl:>9}" for lbl, _ in checkers) + f" {'random':>6} " + " ".join(
        f"{'bad/' + lbl:>9}" for lbl, _ in checkers)
    print(hdr)
    total_bad = {lbl: 0 for lbl, _ in checkers}
    for wlabel, wpath in writers:
        for kind, scen in SCENARIOS:
            case = Case(a.work, wpath, [p for _, p in checkers], kind, scen, a.ops)
            label = f"{case.name}-{scen}"
            if a.only and a.only not in label:
                continue
            case.setup()
            case.fresh()
            trace = os.path.join(a.work, "trace")
            t0 = time.monotonic()
            r = run([strace, "-f", "-qq", "-o", trace, "-e", "trace=" + ",".join(WRITE_CALLS)]
                    + case.ops_cmd(), env=case.env)
            if r.returncode != 0:
                sys.exit(f"{label}: ops failed: {r.stderr}")
            if case.acked() != a.ops or any(case.check()):
                sys.exit(f"{label}: an uninterrupted run does not check out: {case.check()}")
            if a.same_bytes_as and wlabel == "ours":
                same_bytes(case, a.same_bytes_as, label)
            points = write_points(trace)
            bad = [0] * len(checkers)
            for name, nth in points:
                case.fresh()
                run([strace, "-f", "-qq", "-o", "/dev/null", "-e", "trace=" + name, "-e",
                     f"inject={name}:signal=SIGKILL:when={nth}"] + case.ops_cmd(), env=case.env)
                res = case.check()
                for i, why in enumerate(res):
                    if why:
                        bad[i] += 1
                        if a.verbose:
                            print(f"  {wlabel} {label} kill before {name}#{nth} "
                                  f"(acked {case.acked()}): {checkers[i][0]}: {why}")
            # Random kills: within the time an uninterrupted run takes (without strace).
            case.fresh()
            t0 = time.monotonic()
            run(case.ops_cmd(), env=case.env)
            dur = time.monotonic() - t0
            rbad = [0] * len(checkers)
            for _ in range(a.random):
                case.fresh()
                p = subprocess.Popen(case.ops_cmd(), env=case.env)
                time.sleep(rng.uniform(0, dur))
                p.kill()
                p.wait()
                res = case.check()
                for i, why in enumerate(res):
                    if why:
                        rbad[i] += 1
                        if a.verbose:
                            print(f"  {wlabel} {label} random kill (acked {case.acked()}): "
                                  f"{checkers[i][0]}: {why}")
            if wlabel == "ours":
                for i, (lbl, _) in enumerate(checkers):
                    total_bad[lbl] += bad[i] + rbad[i]
            print(f"{wlabel:8} {label:15} {len(points):6} " + " ".join(f"{b:9}" for b in bad)
                  + f" {a.random:6} " + " ".join(f"{b:9}" for b in rbad), flush=True)
    print("crash: not OK with our writer: " + ", ".join(
        f"{v} read by {k}" for k, v in total_bad.items()))
    return 0 if total_bad.get("ours", 0) == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
