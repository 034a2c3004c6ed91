// Communication cost per iteration of one M x N layer, in parameters moved through a
// node, for P1 workers, P2 server shards and batch K per worker (POSEIDON.md Table 1),
// and the two BestScheme rules that choose between them.
#pragma once

#include "model/workload/layer.hpp"

namespace possim {

namespace table1 {
// Parameter server, full matrices.
double ps_server(double m, double n, double p1, double p2);      // 2 P1 M N / P2
double ps_worker(double m, double n);                            // 2 M N
double ps_colocated(double m, double n, double p1, double p2);   // 2 M N (P1 + P2 - 2) / P2
// Sufficient factor broadcasting: K (u, v) pairs to and from every peer.
double sfb_worker(double m, double n, double p1, double k);      // 2 K (P1 - 1)(M + N)
// Adam: factors pushed to the server, full matrix pulled back.
double adam_server(double m, double n, double p1, double k);     // P1 M N + P1 K (M + N)
double adam_worker(double m, double n, double k);                // K (M + N) + M N
double adam_colocated(double m, double n, double p1, double k);  // (P1 - 1)(M N + K M + K N)
}  // namespace table1

enum class Scheme { ps, sfb, adam };
const char* to_string(Scheme s);

// Both rules count values; `w` is the bytes of a factor value per byte of a gradient value
// (1 in fp32; 0.5 under AMP, whose factors are 16-bit activations and gradients fp32), so
// that they compare bytes on the wire.
// ATC'17: SFB for an FC layer when 2K(P1-1)(M+N) w <= 2MN(P1+P2-2)/P2, else PS.
Scheme best_scheme_atc17(const Layer& l, int p1, int p2, int k, double w = 1.0);
// 2016 (SACP): FC layers choose SFB when (P1-1) 2K(M+N) w <= P1 K(M+N) w + P1 M N,
// else the Adam-style scheme; other layers use PS.
Scheme best_scheme_sacp16(const Layer& l, int p1, int k, double w = 1.0);

}  // namespace possim
