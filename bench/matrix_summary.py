"""Table and per-family summary of a bench/matrix.sh run.

    matrix_summary.py time FILE        lines: LIB(0 ours, 1 reference) TAB ROW TAB SECONDS TAB RSS_KIB TAB FAULTS
                                       [TAB ok | what was wrong]
    matrix_summary.py callgrind FILE   lines: ROW TAB OUR_INSTRUCTIONS TAB REFERENCE_INSTRUCTIONS

gain = reference / ours (time or instructions; above 1: ours faster). The summary gives, per family
(the first word of the row name) and thread count, the minimum, median and maximum gain, the
geometric mean of all gains without those above 10, and lists the rows under 1.00."""
import math
import statistics
import sys
from collections import defaultdict


def main():
    mode, path = sys.argv[1], sys.argv[2]
    rows = {}  # row -> (gain, rss ratio or None, our figure, reference figure)
    wrong = defaultdict(dict)  # row -> {lib: what was wrong}
    order = []
    if mode == "time":
        t = defaultdict(lambda: ([], [], [], []))
        for line in open(path):
            fields = line.rstrip("\n").split("\t")
            lib, row, sec, rss = fields[:4]
            if len(fields) > 5 and fields[5] != "ok":
                wrong[row][int(lib)] = fields[5]
            if row not in t:
                order.append(row)
            t[row][int(lib)].append(float(sec))
            t[row][2 + int(lib)].append(int(rss))
        for row in order:
            ours, ref, rss_o, rss_r = t[row]
            o, r = statistics.median(ours), statistics.median(ref)
            rows[row] = (r / o, max(rss_o) / max(rss_r), o * 1e6, r * 1e6)
        unit = "us"
    else:
        for line in open(path):
            row, o, r = line.rstrip("\n").split("\t")
            order.append(row)
            rows[row] = (int(r) / int(o), None, int(o), int(r))
        unit = "instructions"
    print(f"| row | ours ({unit}) | reference ({unit}) | gain |" + (" peak RSS ours/ref |" if mode == "time" else ""))
    print("|---|---:|---:|---:|" + ("---:|" if mode == "time" else ""))
    for row in order:
        g, rss, o, r = rows[row]
        extra = f" {rss:.2f} |" if rss is not None else ""
        mark = "".join(f" ({who} wrong: {wrong[row][lib]})" for lib, who in ((0, "ours"), (1, "reference")) if lib in wrong[row])
        print(f"| {row}{mark} | {o:.0f} | {r:.0f} | {g:.2f} |{extra}")
    fams = defaultdict(list)
    for row in order:
        parts = row.split()
        threads = next((p for p in parts if p in ("t1", "t2")), "")
        fams[f"{parts[0]} {threads}"].append(rows[row][0])
    print()
    print("| family | rows | min | median | max |")
    print("|---|---:|---:|---:|---:|")
    for fam, gains in fams.items():
        print(f"| {fam} | {len(gains)} | {min(gains):.2f} | {statistics.median(gains):.2f} | {max(gains):.2f} |")
    kept = [rows[r][0] for r in order if rows[r][0] <= 10]
    if kept:
        gm = math.exp(sum(math.log(g) for g in kept) / len(kept))
        print(f"\ngeometric mean of the gains (without {len(order) - len(kept)} above 10x): {gm:.2f}")
    under = [r for r in order if rows[r][0] < 1.0]
    print(f"rows under 1.00: {len(under)}")
    for r in under:
        print(f"- {r}: {rows[r][0]:.3f}")
    if mode == "time":
        big = [r for r in order if rows[r][1] > 1.05]
        print(f"rows with peak RSS above 1.05x the reference's: {len(big)}")
        for r in big:
            print(f"- {r}: {rows[r][1]:.3f}")
    ours_wrong = [r for r in order if 0 in wrong[r]]
    ref_wrong = [r for r in order if 1 in wrong[r]]
    print(f"rows where the reference's result is wrong: {len(ref_wrong)}")
    for r in ref_wrong:
        print(f"- {r}: {wrong[r][1]}")
    if ours_wrong:
        print(f"ROWS WHERE OUR RESULT IS WRONG: {len(ours_wrong)}")
        for r in ours_wrong:
            print(f"- {r}: {wrong[r][0]}")
        sys.exit(1)


main()
