#!/usr/bin/python3
"""bench/lp_bound.py: is there a stronger lower bound than the clique? (issue 14)

The LP relaxation of a packing: every byte level of a packing is a set of
items that pairwise do not meet (an independent set of the conflict graph),
so the makespan is at least the weighted fractional chromatic number of that
graph (minimize the total weight of independent sets covering each item by
its size). It is at least the heaviest clique, and can be more on cycles of
arcs (five arcs in a ring, each meeting its neighbours: clique 2, LP 2.5).
Solved by column generation: the master LP by SciPy's HiGHS, the pricing a
max-weight set of pairwise disjoint arcs on the cycle (no arc at point 0: a
line; else each arc holding 0 plus the best line in its complement).
Alignment is ignored (a relaxation: still a bound).

Reads instances written by `bench_cdsa --dump DIR` and prints, per file,
the LP bound next to best's bound and makespan:
    /usr/bin/python3 bench/lp_bound.py DIR/n50_wrap_00*.txt
Dev only: needs Debian's python3-scipy (not a project dependency)."""
import sys, numpy as np
from scipy.optimize import linprog

def read(path):
    it, sol = [], {}
    K = None; items = False
    for line in open(path):
        if line.startswith('#'): continue
        p = line.split()
        if not p: continue
        if items:
            it.append((int(p[0]), int(p[1]), int(p[2]), int(p[3])))
        elif p[0] == 'K': K = int(p[1])
        elif p[0] == 'solver' and p[2] != 'FAIL':
            d = dict(zip(p[2::2], p[3::2])); sol[p[1]] = d
        elif p[0] == 'items': items = True
    return K, it, sol

def covers(s, e, K, t):
    if s == e: return True
    if s < e: return s <= t < e
    return t >= s or t < e

def best_line(arcs_by_end, lo, hi, y):
    # max weight disjoint intervals inside [lo, hi) ; arcs_by_end: list of (s,e,i) linear with s<e
    best = {}
    f = [0.0] * (hi - lo + 1); choice = [None] * (hi - lo + 1)
    for t in range(lo + 1, hi + 1):
        f[t - lo] = f[t - 1 - lo]; choice[t - lo] = None
        for (s, i) in arcs_by_end.get(t, ()):
            if s >= lo:
                v = f[s - lo] + y[i]
                if v > f[t - lo]: f[t - lo] = v; choice[t - lo] = (s, i)
    # backtrack
    t, sel = hi, []
    while t > lo:
        c = choice[t - lo]
        if c is None: t -= 1
        else: sel.append(c[1]); t = c[0]
    return f[hi - lo], sel

def price(K, it, y):
    n = len(it)
    lin = {}   # arcs not containing point 0, as [s,e) with 0<s<e<=K
    wrap0 = [] # arcs containing point 0
    bestv, bests = -1, None
    for i, (s, e, _, _) in enumerate(it):
        if s == e:
            if y[i] > bestv: bestv, bests = y[i], [i]
            continue
        ee = e if e != 0 else K
        if s < ee and s > 0: lin.setdefault(ee, []).append((s, i))
        else: wrap0.append(i)
    v, sel = best_line(lin, 0, K, y)
    if v > bestv: bestv, bests = v, sel
    for a in wrap0:
        s, e = it[a][0], it[a][1]
        # complement of a: points [e, s) linear (a contains 0: s > e or s == 0)
        lo, hi = e, (s if s > 0 else K)
        if s == 0: lo, hi = e, K
        if lo >= hi: vv, ss = 0.0, []
        else: vv, ss = best_line(lin, lo, hi, y)
        if vv + y[a] > bestv: bestv, bests = vv + y[a], ss + [a]
    return bestv, bests

def lp_bound(K, it, iters=400):
    n = len(it)
    scale = max(x[2] for x in it)
    w = np.array([x[2] / scale for x in it])
    cols = [[i] for i in range(n)]
    lb = 0.0; val = None
    for k in range(iters):
        A = np.zeros((n, len(cols)))
        for j, c in enumerate(cols):
            for i in c: A[i, j] = 1
        r = linprog(np.ones(len(cols)), A_ub=-A, b_ub=-w, bounds=(0, None), method='highs')
        val = r.fun
        y = -r.ineqlin.marginals
        pv, ps = price(K, it, y)
        lb = max(lb, val / max(pv, 1.0))
        if pv <= 1 + 1e-9: break
        cols.append(sorted(ps))
    return lb * scale, val * scale, k

if __name__ == '__main__':
    for path in sys.argv[1:]:
        K, it, sol = read(path)
        lb, ub, k = lp_bound(K, it)
        b = sol.get('best', {})
        bound = int(b.get("bound", 1)); mk = int(b.get("makespan", 1)); load = int(b.get("load", 0))
        print(f"{path.split('/')[-1]} n {len(it)} load {load} bound {bound} best {mk} lp {lb:.0f} (ub {ub:.0f}, {k} it) "
              f"lp/bound {lb/bound:.4f} best/bound {mk/bound:.4f} best/lp {mk/lb:.4f}", flush=True)
