#!/usr/bin/env python3
"""Judge a run of python-blosc2's test suite made by scripts/python-downstream.sh.

usage: python-downstream-report.py RESULTS_DIR KNOWN_FILE

RESULTS_DIR holds what the script and its pytest plugin wrote:
  collect/collected.txt  test ids the collection pass selected (one a line)
  collect/results.jsonl  files whose collection raised (plugin records, collection pass)
  collect-crashes.tsv    files whose import killed the collecting process: path<TAB>why
  results.jsonl          one record per test phase from the real run (plugin, xdist controller)
KNOWN_FILE lists the test ids that fail with the reference c-blosc2 as well ('#' comments).

A test fails when a phase failed (an error when that phase is setup or teardown), when its
worker process died in it (a crash), or when it was collected but never reported (not run).
Prints every failure not in KNOWN_FILE, a count per file, then `N passed, M failed`
(M: those unexpected failures). Writes RESULTS_DIR/unexpected.tsv. Exit status 0 iff M == 0.
"""

import collections
import json
import os
import sys

RANK = {"skipped": 0, "xfailed": 0, "passed": 1, "xpassed": 1, "error": 2, "failed": 3, "crash": 4}


def read_lines(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [line.strip() for line in f if line.strip() and not line.startswith("#")]


def read_jsonl(path):
    return [json.loads(line) for line in read_lines(path)]


def outcome_of_phase(rec):
    """(outcome, message) of one recorded phase."""
    if rec["outcome"] == "failed":
        if rec["when"] == "???":  # the report xdist makes up when a worker dies
            return "crash", "CRASH: the pytest worker died while running this test (its stack: pytest.log)"
        if rec["when"] == "call":
            return ("failed", rec["msg"]) if not rec["xfail"] else ("failed", "XPASS(strict) " + rec["msg"])
        return "error", f"ERROR in {rec['when']}: {rec['msg']}"
    if rec["outcome"] == "skipped":
        return ("xfailed" if rec["xfail"] else "skipped"), rec["msg"]
    if rec["when"] == "call":
        return ("xpassed" if rec["xfail"] else "passed"), ""
    return None, ""  # a passing setup or teardown says nothing on its own


def main():
    out_dir, known_file = sys.argv[1], sys.argv[2]
    known = set(read_lines(known_file))

    verdict = collections.OrderedDict()  # test id -> (outcome, message)
    for test_id in read_lines(os.path.join(out_dir, "collect", "collected.txt")):
        verdict[test_id] = ("not run", "NOT RUN: collected, but no result came back (see pytest.log)")
    for rec in read_jsonl(os.path.join(out_dir, "collect", "results.jsonl")):
        verdict[rec["id"]] = ("error", "ERROR collecting this file: " + rec["msg"])
    for line in read_lines(os.path.join(out_dir, "collect-crashes.tsv")):
        path, why = line.split("\t", 1)
        verdict[path] = ("crash", "CRASH while collecting (importing) this file, so none of its "
                         f"tests ran: {why}")

    seen_in_run = set()
    for rec in read_jsonl(os.path.join(out_dir, "results.jsonl")):
        if rec["when"] == "collect":
            continue  # collection errors are taken from the single-process collection pass
        outcome, msg = outcome_of_phase(rec)
        if outcome is None:
            continue
        test_id = rec["id"]
        old = verdict.get(test_id) if test_id in seen_in_run else None
        if old is None or RANK[outcome] > RANK[old[0]]:
            verdict[test_id] = (outcome, msg)
        seen_in_run.add(test_id)

    counts = collections.Counter(outcome for outcome, _ in verdict.values())
    bad = ("failed", "error", "crash", "not run")
    unexpected = [(tid, o, m) for tid, (o, m) in verdict.items() if o in bad and tid not in known]
    known_failing = sum(1 for tid, (o, _) in verdict.items() if o in bad and tid in known)
    known_passing = [tid for tid in known if tid in verdict and verdict[tid][0] not in bad]

    passed = counts["passed"] + counts["xpassed"]
    print(f"python-downstream: {passed} passed, {counts['failed']} failed, {counts['error']} errors, "
          f"{counts['crash']} crashes, {counts['not run']} not run, "
          f"{counts['skipped'] + counts['xfailed']} skipped; "
          f"{known_failing} of the failures are known (fail with the reference c-blosc2 too)")
    for tid in known_passing:
        print(f"note: known failure now {verdict[tid][0]}: {tid}")

    with open(os.path.join(out_dir, "unexpected.tsv"), "w") as f:
        for tid, outcome, msg in unexpected:
            f.write(f"{tid}\t{outcome}\t{msg}\n")
            print(f"UNEXPECTED {tid}: {msg or outcome}")
    if unexpected:
        print("unexpected failures per file:")
        per_file = collections.Counter(tid.split("::", 1)[0] for tid, _, _ in unexpected)
        for path, n in per_file.most_common():
            print(f"{n:7d} {path}")
    print(f"{passed} passed, {len(unexpected)} failed")
    return 0 if not unexpected else 1


if __name__ == "__main__":
    sys.exit(main())
