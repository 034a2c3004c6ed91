#!/usr/bin/env bash
# How closely can any mechanism of a given shape in N follow the Caffe+PS curve of POSEIDON.md
# section 9 (VGG19-22K, 40 GbE, s/iteration at 2-32 nodes)? For each family of curves t(N)
# this prints the smallest worst relative error over the five points, fitted to these five
# points alone: a lower bound on what a model of that shape reaches with the other section 9
# points also to honour. Prints a Markdown table.
# Each family is linear in its coefficients once its shape parameter (p, c or K) is fixed,
# so its minimax fit is exact: the best fit equioscillates on m+1 of the points (Chebyshev),
# so every subset of m+1 points and sign pattern is solved and the feasible one with the
# largest level is kept. The shape parameter runs over a grid.
# Why: a mechanism that costs a fixed amount per peer (per-peer server work, serialized
# connections, a pass per shard, incast retransmissions per sender) adds time linear in N,
# and the measured increments per added node are 0.34, 0.23, 0.23 and 0.09 s: concave.
# Usage: traces/measured/caffe_ps_shape.sh      (4 s, awk only)
set -euo pipefail
awk 'BEGIN {
  n = split("2 4 8 16 32", N, " "); split("1.84 2.515 3.425 5.25 6.7", T, " ")
  printf "| family t(N) | coefficients + shape parameters | best worst error | at |\n|---|---|---|---|\n"
  fam = 1; e = minimax(2); row("a + b N (any fixed cost per peer)", "2 + 0", e, sprintf("a=%.3f s, b=%.4f s/node", C[1], C[2]))
  fam = 2; e = minimax(2); row("a + b log2 N (a tree of rounds)", "2 + 0", e, sprintf("a=%.3f s, b=%.3f s", C[1], C[2]))
  fam = 3; best = 9; for (P = 0.05; P <= 1.0001; P += 0.005) { e = minimax(2); if (e < best) { best = e; arg = sprintf("a=%.3f s, b=%.3f s, p=%.3f", C[1], C[2], P) } }
  row("a + b N^p", "2 + 1", best, arg)
  fam = 4; best = 9; for (P = 1; P <= 1000; P *= 1.005) { e = minimax(2); if (e < best) { best = e; arg = sprintf("a=%.3f s, b=%.3f s/node, c=%.1f nodes", C[1], C[2], P) } }
  row("a + b N / (1 + N / c) (a per-peer cost that saturates)", "2 + 1", best, arg)
  fam = 5; best = 9; for (P = 2; P <= 32.0001; P += 0.05) { e = minimax(3); if (e < best) { best = e; arg = sprintf("a=%.3f s, b=%.4f s/node, c=%.4f s/node, K=%.2f nodes", C[1], C[2], C[3], P) } }
  row("a + b min(N, K) + c N (two regimes, kink at K)", "3 + 1", best, arg)
  fam = 6; e = minimax(3); row("a + b N + c N^2 (a polynomial, no mechanism)", "3 + 0", e, sprintf("a=%.3f s, b=%.4f s/node, c=%.5f s/node^2: peaks at %.0f nodes", C[1], C[2], C[3], -C[2] / (2 * C[3])))
}
function basis(j, x) {  # the family s j-th basis function at x nodes (P: its shape parameter)
  if (j == 1) return 1
  if (fam == 1) return x
  if (fam == 2) return log(x) / log(2)
  if (fam == 3) return x ^ P
  if (fam == 4) return x / (1 + x / P)
  if (fam == 6) return j == 2 ? x : x * x
  return j == 2 ? (x < P ? x : P) : x
}
function value(x, coef,   j, s) { s = 0; for (j = 1; j <= m; j++) s += coef[j] * basis(j, x); return s }
function worst(coef,   i, e, w) { w = 0; for (i = 1; i <= n; i++) { e = value(N[i], coef) / T[i] - 1; if (e < 0) e = -e; if (e > w) w = e }; return w }
# Minimax over the coefficients for m basis functions: on each reference set of m+1 points with
# signs s, solve sum_j coef_j f_j(N_i) - s_i T_i h = T_i; keep the smallest worst error.
function minimax(mm,   best, mask, cnt, i, k, sgn, r, c, j, A, x, ref, piv, f, w) {
  m = mm; best = 9
  for (mask = 0; mask < 2 ^ n; mask++) {
    cnt = 0; for (i = 1; i <= n; i++) if (int(mask / 2 ^ (i - 1)) % 2) ref[++cnt] = i
    if (cnt != m + 1) continue
    for (sgn = 0; sgn < 2 ^ (m + 1); sgn++) {
      for (r = 1; r <= m + 1; r++) {
        i = ref[r]
        for (j = 1; j <= m; j++) A[r, j] = basis(j, N[i])
        A[r, m + 1] = -(int(sgn / 2 ^ (r - 1)) % 2 ? 1 : -1) * T[i]; A[r, m + 2] = T[i]
      }
      if (!gauss(m + 1, A, x)) continue
      if (x[m + 1] < 0) continue
      w = worst(x)
      if (w < best && w < x[m + 1] + 1e-9) { best = w; for (j = 1; j <= m; j++) C[j] = x[j] }
    }
  }
  return best
}
function gauss(k, A, x,   c, r, p, f, j, t) {  # solve the k x k system in A (column k+1: right side)
  for (c = 1; c <= k; c++) {
    p = c; for (r = c + 1; r <= k; r++) if ((A[r, c] < 0 ? -A[r, c] : A[r, c]) > (A[p, c] < 0 ? -A[p, c] : A[p, c])) p = r
    if ((A[p, c] < 0 ? -A[p, c] : A[p, c]) < 1e-14) return 0
    for (j = 1; j <= k + 1; j++) { t = A[c, j]; A[c, j] = A[p, j]; A[p, j] = t }
    for (r = 1; r <= k; r++) if (r != c) { f = A[r, c] / A[c, c]; for (j = 1; j <= k + 1; j++) A[r, j] -= f * A[c, j] }
  }
  for (r = 1; r <= k; r++) x[r] = A[r, k + 1] / A[r, r]
  return 1
}
function row(name, k, e, where) { printf "| %s | %s | %.2f%% | %s |\n", name, k, 100 * e, where }'
