#!/usr/bin/env python3
"""Exact optimum of bench_cdsa instances by a disjunctive MIP solved with CBC.

Dev tool for issue 14 (is the bound or the search the limit?); needs the
`cbc` binary (Debian: coinor-cbc), no Python packages. Not a project
dependency.

    ./build/bench_cdsa --instances 100 --ns 25 --no-minimalloc --no-gen \\
        --solvers best,best:1000 --dump /tmp/inst
    python3 bench/opt_mip.py --time 60 /tmp/inst/n25_wrap_00*.txt
    python3 bench/opt_mip.py --time 1 --lns 60 FILE...   # n >= 50: upper bounds

Model (one instance file as bench_cdsa --dump writes it): offsets
o_i = a_i k_i (k_i integer), makespan M >= o_i + size_i, and for each pair of
items whose arcs meet a binary y_ij: y_ij = 1 puts i below j,
o_i + size_i <= o_j (big-M: the largest possible o_i + size_i), y_ij = 0 the
reverse. All offsets are multiples of the smaller alignment of a pair, so a
size counts rounded up to it there, and bytes are scaled by the gcd of the
alignments and those rounded sizes. By default every size is also rounded
up to its alignment in M >= o_i + size_i, so M is a whole number of units
(CBC then knows the objective is integral); the true optimum is within one
alignment unit below (--exact-bytes: real sizes, M continuous; tiny 1- and
4-byte items then leave byte-level gaps CBC closes only slowly). CBC stops
at a relative gap of --gap (1e-6: ~40 bytes of 40 MB). Symmetry: items
identical in arc, size and alignment are ordered by index. Valid cuts:
M >= the instance's bound (best's result.bound, and the heaviest clique with
rounded sizes, computed here), M >= the aligned load at every point,
M <= the lowest packing in the file, which CBC gets as its start.

Every solution CBC returns is checked here with integers (alignment, no two
meeting items overlap) before its makespan is reported.
Output: one line per instance (optimal / gap: solved; open: the proved lower
bound LB and the lowest packing found) and a summary; --csv FILE appends rows.
"""
import argparse
import math
import os
import re
import subprocess
import sys
import tempfile
import time


def read_instance(path):
    inst = {"path": path, "solvers": {}, "items": []}
    with open(path) as f:
        lines = f.read().split("\n")
    it = iter(lines)
    for line in it:
        if line.startswith("#") or not line.strip():
            continue
        w = line.split()
        if w[0] in ("n", "K", "cyclic", "period"):
            inst[w[0]] = int(w[1])
        elif w[0] == "solver":
            if w[2] == "FAIL":
                continue
            d = {w[k]: w[k + 1] for k in range(2, len(w) - 1, 2)}
            inst["solvers"][w[1]] = {k: (float(v) if k == "ms" else int(v)) for k, v in d.items()}
        elif w[0] == "items":
            for row in it:
                r = row.split()
                if not r:
                    continue
                s, e, size, align = int(r[0]), int(r[1]), int(r[2]), int(r[3])
                off = int(r[6]) if len(r) > 6 else None
                inst["items"].append((s, e, size, align, off))
    assert len(inst["items"]) == inst["n"], path
    return inst


def arc_len(s, e, K):
    return K if s == e else (e - s if s < e else K - s + e)


def contains(it, t, K):
    s, e = it[0], it[1]
    return (t - s) % K < arc_len(s, e, K)


def meets(a, b, K):
    """Two arcs meet iff one holds the other's start (pack_inst.h)."""
    return contains(a, b[0], K) or contains(b, a[0], K)


def ceil_to(x, a):
    return -(-x // a) * a


def check_packing(items, K, off):
    """Integer check: aligned offsets, no two meeting items overlapping. Returns the makespan or None."""
    for (s, e, size, a, _), o in zip(items, off):
        if o < 0 or o % a:
            return None
    n = len(items)
    for i in range(n):
        for j in range(i + 1, n):
            if meets(items[i], items[j], K):
                if off[i] < off[j] + items[j][2] and off[j] < off[i] + items[i][2]:
                    return None
    return max(o + it[2] for it, o in zip(items, off))


def max_clique(w, adj):
    """Heaviest clique (exact branch and bound; adj: bitmasks). On a cycle it can exceed LOAD."""
    n = len(w)
    order = sorted(range(n), key=lambda i: -w[i])
    best = [0]

    def rec(cand, cur):
        if cur > best[0]:
            best[0] = cur
        rest = sum(w[i] for i in cand)
        for k, v in enumerate(cand):
            if cur + rest <= best[0]:
                return
            rec([x for x in cand[k + 1:] if adj[v] >> x & 1], cur + w[v])
            rest -= w[v]

    rec(order, 0)
    return best[0]


def is_whole(it, K):
    return it[0] == it[1]


def whole_bottom(items, K, exact_bytes):
    """May whole-cycle items be stacked at the bottom, in index order? They meet every item, so
    none straddles one: moving one to the bottom shifts the items below it up by its size, which
    keeps every alignment when that (rounded) size is a multiple of all of them."""
    amax = max(it[3] for it in items)
    whole = [it for it in items if is_whole(it, K)]
    return not exact_bytes and whole and all(ceil_to(it[2], it[3]) % amax == 0 for it in whole)


def whole_to_bottom(items, K, off):
    """A packing with its whole-cycle items moved to the bottom in index order (whole_bottom)."""
    top = [ceil_to(it[2], it[3]) for it in items]
    wi = [i for i, it in enumerate(items) if is_whole(it, K)]
    new = list(off)
    for i, it in enumerate(items):
        if not is_whole(it, K):
            new[i] = off[i] + sum(top[w] for w in wi if off[w] > off[i])
    at = 0
    for w in wi:
        new[w] = at
        at += top[w]
    return new


def build_lp(inst, bound, ub, exact_bytes, fix=None):
    """The MIP as LP-format text. exact_bytes=False (default): every size rounded up to its
    alignment, so everything is a whole number of units, M too (CBC then knows the objective is
    integral); the rounded optimum OPT_r is within one alignment unit (minus a byte) above the
    true optimum. exact_bytes=True: real sizes in M >= o_i + size_i (M continuous)."""
    items, K, n = inst["items"], inst["K"], inst["n"]
    g = min(it[3] for it in items)
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n) if meets(items[i], items[j], K)]
    top = [it[2] if exact_bytes else ceil_to(it[2], it[3]) for it in items]
    vals = [it[3] for it in items] + ([] if exact_bytes else top)
    for i, j in pairs:
        m = min(items[i][3], items[j][3])
        vals += [ceil_to(items[i][2], m), ceil_to(items[j][2], m)]
    u = 0
    for v in vals:
        u = math.gcd(u, v)
    # offsets o_i = u * x_i; x_i = (a_i / u) k_i
    maxo = [((ub - top[i]) // it[3]) * it[3] // u for i, it in enumerate(items)]  # highest x_i
    if not exact_bytes:  # the clique bound again, with rounded sizes
        adj = [0] * n
        for i, j in pairs:
            adj[i] |= 1 << j
            adj[j] |= 1 << i
        bound = max(bound, max_clique(top, adj))
    L = ["\\ bench_cdsa instance %s, unit %d bytes" % (os.path.basename(inst["path"]), u), "Minimize", " obj: M",
         "Subject To"]
    L.append(" lb: M >= %.10g" % math.ceil(bound / u) if not exact_bytes else " lb: M >= %.10g" % (bound / u))
    for i, it in enumerate(items):
        L.append(" top%d: M - %d k%d >= %.10g" % (i, it[3] // u, i, top[i] / u))
    twin = {}  # pairs whose order is fixed (no binary): i below j
    wb = whole_bottom(items, K, exact_bytes)
    for i, j in pairs:
        a, b = items[i], items[j]
        m = min(a[3], b[3])
        ca, cb = ceil_to(a[2], m) // u, ceil_to(b[2], m) // u
        xa, xb = "%d k%d" % (a[3] // u, i), "%d k%d" % (b[3] // u, j)
        if fix and (i, j) in fix:  # --lns: kept as in the incumbent
            lo, hi, c = (xa, xb, ca) if fix[(i, j)] else (xb, xa, cb)
            L.append(" fix%d_%d: %s - %s <= -%d" % (i, j, lo, hi, c))
            twin[(i, j)] = fix[(i, j)]
            continue
        if a[:4] == b[:4] or (wb and is_whole(a, K)):  # identical, or whole below: i below j
            L.append(" sym%d_%d: %s - %s <= -%d" % (i, j, xa, xb, ca))
            twin[(i, j)] = 1
            continue
        if wb and is_whole(b, K):  # whole j below i
            L.append(" sym%d_%d: %s - %s <= -%d" % (i, j, xb, xa, cb))
            twin[(i, j)] = 0
            continue
        # y=1: x_i + ca <= x_j ; y=0: x_j + cb <= x_i
        Bi = maxo[i] + ca  # x_i + ca - x_j <= Bi
        Bj = maxo[j] + cb
        L.append(" a%d_%d: %s - %s + %d y%d_%d <= %d" % (i, j, xa, xb, Bi, i, j, Bi - ca))
        L.append(" b%d_%d: %s - %s - %d y%d_%d <= -%d" % (i, j, xb, xa, Bj, i, j, cb))
    for t in range(K):  # aligned load at each point
        alive = [i for i, it in enumerate(items) if contains(it, t, K)]
        if len(alive) < 2:
            continue
        tot = sum(ceil_to(items[i][2], g) for i in alive) - max(ceil_to(items[i][2], g) - top[i] for i in alive)
        L.append(" load%d: M >= %.10g" % (t, tot / u))
    L.append("Bounds")
    L.append(" M <= %.10g" % (ub / u))
    for i, it in enumerate(items):
        L.append(" 0 <= k%d <= %d" % (i, maxo[i] // (it[3] // u)))
    L.append("General")
    L += [" k%d" % i for i in range(n)] + ([] if exact_bytes else [" M"])
    L.append("Binary")
    L += [" y%d_%d" % p for p in pairs if p not in twin]
    L.append("End")
    return "\n".join(L) + "\n", u, pairs, twin, bound, top


def write_start(path, off, top, u, pairs, twin, items):
    """A packing as a CBC solution file (for -mipstart)."""
    mk = max(o + t for o, t in zip(off, top)) / u
    rows = ["Stopped on time - objective value %.10g" % mk, "%7d M %.10g 1" % (0, mk)]
    for i, it in enumerate(items):
        rows.append("%7d k%d %d 0" % (len(rows) - 1, i, off[i] // it[3]))
    for i, j in pairs:
        if (i, j) not in twin:
            rows.append("%7d y%d_%d %d 0" % (len(rows) - 1, i, j, 1 if off[i] < off[j] else 0))
    with open(path, "w") as f:
        f.write("\n".join(rows) + "\n")


def run_cbc(lp, tlimit, gap, start, keep):
    with tempfile.TemporaryDirectory() as d:
        lpf, solf, stf = os.path.join(d, "m.lp"), os.path.join(d, "m.sol"), os.path.join(d, "start.sol")
        with open(lpf, "w") as f:
            f.write(lp)
        if keep:
            with open(keep, "w") as f:
                f.write(lp)
        cmd = ["cbc", lpf, "-threads", "1", "-sec", str(tlimit), "-ratioGap", repr(gap), "-allowableGap", "0",
               "-integerTolerance", "1e-9", "-primalTolerance", "1e-9"]
        if start:
            start(stf)
            cmd += ["-mipstart", stf]
        cmd += ["-solve", "-solution", solf]
        t0 = time.time()
        p = subprocess.run(cmd, capture_output=True, text=True)
        secs = time.time() - t0
        sol = open(solf).read() if os.path.exists(solf) else ""
    return p.stdout, sol, secs


def parse_cbc(out, sol, items, u, gap, exact_bytes):
    """CBC's status, a proved lower bound on M in bytes (None: none proved beyond the model's
    own), and the offsets of its solution (None when it has none)."""
    status = "unknown"
    if "Result - Optimal solution found" in out:
        status = "optimal"
    elif "Stopped on time" in out:
        status = "timeout"
    elif "infeasible" in out.lower():
        status = "infeasible"
    lb = None
    obj = re.search(r"Objective value:\s+([-0-9.e+]+)", out)
    lbm = re.search(r"Lower bound:\s+([-0-9.e+]+)", out)
    if status == "optimal" and obj:  # stopped once objective - its bound <= gap * objective
        v = float(obj.group(1))
        lb = v - gap * v
    elif lbm:
        lb = float(lbm.group(1))
    if lb is not None:  # whole units when rounded
        lb = int(math.ceil(lb - 1e-6)) * u if not exact_bytes else int(math.ceil(lb * u - 1e-6))
    if not sol.strip():
        return status, lb, None
    off = [0] * len(items)  # the solution file leaves out variables at zero
    for line in sol.split("\n"):
        m = re.match(r"\s*\d+\s+k(\d+)\s+([-0-9.e+]+)", line)
        if m:
            i = int(m.group(1))
            off[i] = int(round(float(m.group(2)))) * items[i][3]
    return status, lb, off


def solve(inst, tlimit, gap, exact_bytes=False, keep=None):
    """found: the lowest packing known (the file's, or CBC's, checked); lb: a proved lower bound.
    Solved when found - lb <= gap * found (status optimal when equal, gap otherwise), else open.
    Without exact_bytes both are for sizes rounded up to their alignment: the true optimum is at
    most found and above lb - align."""
    items, K = inst["items"], inst["K"]
    best = inst["solvers"].get("best")
    bound = max(s["bound"] for s in inst["solvers"].values())
    off0 = [it[4] for it in items]
    if off0[0] is None or check_packing(items, K, off0) is None:
        off0 = None
    if off0 and whole_bottom(items, K, exact_bytes):  # the start must keep the model's order
        off0 = whole_to_bottom(items, K, off0)
        assert check_packing(items, K, off0) is not None
    top = [it[2] if exact_bytes else ceil_to(it[2], it[3]) for it in items]
    found = max(o + t for o, t in zip(off0, top)) if off0 else \
        sum(ceil_to(it[2], it[3]) for it in items) + max(it[3] for it in items)
    lp, u, pairs, twin, lb, top = build_lp(inst, bound, found, exact_bytes)
    res = {"name": os.path.basename(inst["path"]), "n": inst["n"], "bound": bound, "bound2": lb,
           "best": best["makespan"] if best else None, "pairs": len(pairs), "secs": 0.0, "cbc": ""}
    amax = max(it[3] for it in items)
    res["best_r"] = res["best"] if exact_bytes or res["best"] is None else ceil_to(res["best"], amax)
    for name, s in inst["solvers"].items():
        res["mk:" + name] = s["makespan"]
    if found > lb and found - lb > gap * found:
        start = (lambda path: write_start(path, off0, top, u, pairs, twin, items)) if off0 else None
        out, sol, res["secs"] = run_cbc(lp, tlimit, gap, start, keep)
        cst, clb, coff = parse_cbc(out, sol, items, u, gap, exact_bytes)
        res["cbc"] = cst
        if clb is not None:
            lb = max(lb, clb)
        if coff is not None:
            if check_packing(items, K, coff) is None:
                res["cbc"] += "+badsol"
            elif max(o + t for o, t in zip(coff, top)) < found:
                found = max(o + t for o, t in zip(coff, top))
                res["off"] = coff
    res.update(found=found, lb=min(lb, found))
    res["status"] = "optimal" if lb >= found else ("gap" if found - lb <= gap * found else "open")
    res["opt"] = found if res["status"] != "open" else None
    return res


def lns(inst, res, seconds, sub_seconds, free, seed=1):
    """Large-neighbourhood search for a lower packing (an upper bound on OPT where CBC alone
    stalls): the items meeting a random band of addresses (at most free of them) are re-placed
    by CBC, every other pair keeps its order from the incumbent (their offsets still move)."""
    import random
    rng = random.Random(seed)
    items, K = inst["items"], inst["K"]
    top = [ceil_to(it[2], it[3]) for it in items]
    off = res.get("off") or [it[4] for it in items]
    if whole_bottom(items, K, False):
        off = whole_to_bottom(items, K, off)
    n = len(items)
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n) if meets(items[i], items[j], K)]
    t_end = time.time() + seconds
    found, tries = res["found"], 0
    while time.time() < t_end and found > res["lb"]:
        tries += 1
        M = max(o + t for o, t in zip(off, top))
        h = rng.random() * M
        band = M * rng.uniform(0.1, 0.4)
        F = [i for i in range(n) if off[i] < h + band and off[i] + top[i] > h and not is_whole(items[i], K)]
        rng.shuffle(F)
        F = set(F[:free])
        fix = {(i, j): off[i] < off[j] for i, j in pairs if i not in F and j not in F}
        lp, u, prs, twin, _, _ = build_lp(inst, res["bound"], M, False, fix)
        start = lambda path: write_start(path, off, top, u, prs, twin, items)
        out, sol, _ = run_cbc(lp, min(sub_seconds, max(1, t_end - time.time())), 0, start, None)
        _, _, coff = parse_cbc(out, sol, items, u, 0, False)
        if coff is not None and check_packing(items, K, coff) is not None:
            mk = max(o + t for o, t in zip(coff, top))
            if mk < M:
                off = coff
                if mk < found:
                    found = mk
                    res["off"] = coff
    res["lns_tries"] = tries
    if found < res["found"]:
        res["found"] = found
        res["status"] = "optimal" if res["lb"] >= found else ("gap" if found - res["lb"] <= 1e-6 * found else "open")
        res["opt"] = found if res["status"] != "open" else None
    return res


def pct(v, p):
    v = sorted(v)
    return v[int(p * (len(v) - 1) + 0.5)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--time", type=float, default=60, help="CBC time limit per instance, seconds")
    ap.add_argument("--csv", help="append one row per instance to this file")
    ap.add_argument("--gap", type=float, default=1e-6,
                    help="relative gap at which CBC stops (default 1e-6: about 40 bytes of 40 MB, where tiny "
                         "items (1-4 bytes, aligned to 8) leave gaps CBC proves only slowly); 0 = exact")
    ap.add_argument("--keep-lp", help="write the last .lp here")
    ap.add_argument("--packings", help="write each packing CBC found below the file's as DIR/NAME.off "
                                       "(one offset per item, in file order) for fg_check_packing")
    ap.add_argument("--lns", type=float, default=0,
                    help="seconds of large-neighbourhood search (CBC on a band of items, the rest in the "
                         "incumbent's order) on instances left open: a lower packing, an upper bound on OPT")
    ap.add_argument("--lns-sub", type=float, default=10, help="CBC seconds per neighbourhood")
    ap.add_argument("--lns-free", type=int, default=20, help="items re-placed per neighbourhood")
    ap.add_argument("--exact-bytes", action="store_true",
                    help="real sizes in the makespan (default: sizes rounded up to alignment, OPT exact to one "
                         "alignment unit; far easier for CBC)")
    a = ap.parse_args()
    rows = []
    for path in a.files:
        inst = read_instance(path)
        r = solve(inst, a.time, a.gap, a.exact_bytes, a.keep_lp)
        if a.lns and r["status"] == "open" and not a.exact_bytes:
            r = lns(inst, r, a.lns, a.lns_sub, a.lns_free)
        rows.append(r)
        if a.packings and "off" in r:
            os.makedirs(a.packings, exist_ok=True)
            with open(os.path.join(a.packings, r["name"][:-4] + ".off"), "w") as f:
                f.write("".join("%d\n" % o for o in r["off"]))
        extra = " ".join("%s=%d" % (k[3:], v) for k, v in r.items() if k.startswith("mk:"))
        if r["opt"] is not None:
            print("%s n=%d pairs=%d %s OPT=%d (>=%d) OPT/bound=%.6f best/OPT=%.6f %.1fs %s" %
                  (r["name"], r["n"], r["pairs"], r["status"], r["opt"], r["lb"], r["opt"] / r["bound"],
                   r["best_r"] / r["opt"], r["secs"], extra), flush=True)
        else:
            print("%s n=%d pairs=%d %s LB=%d LB/bound=%.6f found=%d found/bound=%.6f %.1fs %s %s" %
                  (r["name"], r["n"], r["pairs"], r["status"], r["lb"], r["lb"] / r["bound"], r["found"],
                   r["found"] / r["bound"], r["secs"], r["cbc"], extra), flush=True)
        if a.csv:
            new = not os.path.exists(a.csv)
            with open(a.csv, "a") as f:
                cols = ["name", "n", "pairs", "status", "cbc", "bound", "bound2", "best", "best_r", "opt", "lb",
                        "found", "secs"]
                if new:
                    f.write(",".join(cols + ["solvers"]) + "\n")
                f.write(",".join(str(r.get(c, "")) for c in cols) + "," + extra + "\n")
    solved = [r for r in rows if r["opt"] is not None]
    print("solved %d of %d (%d exactly, the rest within the relative gap %g)%s" %
          (len(solved), len(rows), sum(r["status"] == "optimal" for r in solved), a.gap, "" if a.exact_bytes else
           "; sizes rounded up to alignment: OPT within one alignment unit"))
    if solved:
        ob = [r["opt"] / r["bound"] for r in solved]
        bo = [r["best_r"] / r["opt"] for r in solved]
        print("OPT/bound avg %.4f p90 %.4f max %.4f; OPT > bound on %d" %
              (sum(ob) / len(ob), pct(ob, 0.9), max(ob), sum(x > 1 + 1e-6 for x in ob)))
        print("best/OPT avg %.4f p90 %.4f max %.4f; best == OPT on %d" %
              (sum(bo) / len(bo), pct(bo, 0.9), max(bo), sum(r["best_r"] == r["opt"] for r in solved)))
        print("  (OPT here is the lowest packing found; the proved optimum is within the gap below it)")


if __name__ == "__main__":
    main()
