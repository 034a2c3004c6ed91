#!/usr/bin/env bash
# How closely can any mechanism of a given shape in N follow the Caffe+PS curve of POSEIDON.md
# section 9 (VGG19-22K, 40 GbE, s/iteration at 2-32 nodes)? For each family of curves t(N)
# this finds the smallest worst relative error over the five points that it can (minimax: a grid
# over the shape parameters, the offset a by ternary search, the error being convex in a),
# fitted to these five points alone, so it is a lower bound on what a model of that shape can
# reach with the other section 9 points also to honour. Prints a Markdown table.
# Why: a mechanism that costs a fixed amount per peer (per-peer server work, serialized
# connections, a pass per shard, incast retransmissions per sender) adds time linear in N,
# and the measured increments per added node are 0.34, 0.23, 0.23 and 0.09 s: concave.
# Usage: traces/measured/caffe_ps_shape.sh      (about two minutes, awk only)
set -euo pipefail
awk 'BEGIN {
  n = split("2 4 8 16 32", N, " "); split("1.84 2.515 3.425 5.25 6.7", T, " ")
  printf "| family t(N) | free shape parameters | best worst error | at |\n|---|---|---|---|\n"
  # 1. linear per-peer cost: a + b N
  best = 9; for (b = 0; b <= 0.5; b += 0.0005) { f_kind = 1; fb = b; e = opt_a(); if (e < best) { best = e; arg = sprintf("a=%.3f b=%.4f s/node", A, b) } }
  row("a + b N (any fixed cost per peer)", 1, best, arg)
  # 2. a + b log2 N (a tree of rounds)
  best = 9; for (b = 0; b <= 3; b += 0.001) { f_kind = 2; fb = b; e = opt_a(); if (e < best) { best = e; arg = sprintf("a=%.3f b=%.3f s", A, b) } }
  row("a + b log2 N (a tree of rounds)", 1, best, arg)
  # 3. power law: a + b N^p
  best = 9; for (p = 0.1; p <= 1.0001; p += 0.01) for (b = 0.01; b <= 4; b += 0.005) { f_kind = 3; fb = b; fp = p; e = opt_a(); if (e < best) { best = e; arg = sprintf("a=%.3f b=%.3f p=%.2f", A, b, p) } }
  row("a + b N^p", 2, best, arg)
  # 4. saturating per-peer cost: a + b N / (1 + N / c)
  best = 9; for (c = 2; c <= 200; c *= 1.02) for (b = 0.01; b <= 1.5; b += 0.002) { f_kind = 4; fb = b; fc = c; e = opt_a(); if (e < best) { best = e; arg = sprintf("a=%.3f b=%.3f c=%.1f nodes", A, b, c) } }
  row("a + b N / (1 + N / c) (per-peer cost that saturates)", 2, best, arg)
  # 5. two linear regimes with a kink at K: a + b min(N, K) + c N
  best = 9; for (K = 2; K <= 32; K += 0.5) for (b = 0; b <= 0.6; b += 0.005) for (c = 0; c <= 0.3; c += 0.005) { f_kind = 5; fb = b; fc = c; fK = K; e = opt_a(); if (e < best) { best = e; arg = sprintf("a=%.3f b=%.4f c=%.4f K=%.1f", A, b, c, K) } }
  row("a + b min(N, K) + c N (two regimes, kink at K)", 3, best, arg)
}
function shape(x) {
  if (f_kind == 1) return fb * x
  if (f_kind == 2) return fb * log(x) / log(2)
  if (f_kind == 3) return fb * x ^ fp
  if (f_kind == 4) return fb * x / (1 + x / fc)
  return fb * (x < fK ? x : fK) + fc * x
}
function worst(a,   i, e, m) {
  m = 0; for (i = 1; i <= n; i++) { e = (a + shape(N[i])) / T[i] - 1; if (e < 0) e = -e; if (e > m) m = e }
  return m
}
function opt_a(   lo, hi, m1, m2, k) {  # the worst error is convex in a: ternary search
  lo = -5; hi = 7
  for (k = 0; k < 45; k++) { m1 = lo + (hi - lo) / 3; m2 = hi - (hi - lo) / 3; if (worst(m1) < worst(m2)) hi = m2; else lo = m1 }
  A = (lo + hi) / 2; return worst(A)
}
function row(name, k, e, where) { printf "| %s | %d + offset | %.2f%% | %s |\n", name, k, 100 * e, where }'
