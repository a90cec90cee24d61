# insidestat.awk: the cost inside the sandbox, start-up taken out, from a
# spawnbench raw file (-r: round, name, wall ms, inner ms, cpu ms) whose
# rows are named WORKLOAD:WRAPPER, with a row true:WRAPPER for each
# wrapper (`/bin/true` under the same wrapper, in the same rounds).
#
#   awk -v WORKLOADS="read loop" -v WRAPPERS="bare wicket ..." [-v COL=3|5] \
#       [-v LABELS="read=TEXT;loop=TEXT"] [-v SUMMARY=FILE] \
#       -f quantile.awk -f insidestat.awk RAW
#
# For each round, inside(L, X) = wall(L:X) - wall(true:X): what running
# workload L costs under wrapper X once X has started. With COL=5, the
# same from the CPU time (user + system) of the process tree that
# spawnbench waited for, instead of the wall time (COL=3, the default). Per workload and
# wrapper it prints the median of inside over the rounds (p25..p75), the
# extra cost against bare, median(inside(L, X)) - median(inside(L, bare)),
# and the ratio median(inside(L, X)) / median(inside(L, bare)). The first
# wrapper of WRAPPERS is the reference ("bare").

BEGIN { if (COL == "") COL = 3 }
!/^#/ { wall[$2, $1] = $COL; seen[$1] = 1 }

END {
	nw = split(WRAPPERS, wr, " ")
	nl = split(WORKLOADS, wl, " ")
	nlab = split(LABELS, labs, ";")
	for (i = 1; i <= nlab; i++) {
		k = index(labs[i], "=")
		if (k)
			label[substr(labs[i], 1, k - 1)] = substr(labs[i], k + 1)
	}
	ref = wr[1]
	printf "   %-8s %-14s %9s %19s %11s %7s\n", "workload", "wrapper", "inside", "[p25..p75]",
		"vs " ref, "ratio"
	for (l = 1; l <= nl; l++) {
		L = wl[l]
		for (w = 1; w <= nw; w++) {
			X = wr[w]
			n = 0
			delete v
			for (r in seen)
				if ((L ":" X, r) in wall && ("true:" X, r) in wall)
					v[++n] = wall[L ":" X, r] - wall["true:" X, r]
			sort(v, n)
			med[X] = n ? q(v, n, .5) : 0
			if (n == 0) {
				printf "   %-8s %-14s %9s\n", L, X, "no runs"
				continue
			}
			if (w == 1)
				printf "   %-8s %-14s %9.2f  [%7.2f..%7.2f] %11s %7s\n", L, X, med[X],
					q(v, n, .25), q(v, n, .75), "", ""
			else {
				d = med[X] - med[ref]
				r = med[ref] > 0 ? med[X] / med[ref] : 0
				printf "   %-8s %-14s %9.2f  [%7.2f..%7.2f] %+9.2f ms %6.3fx\n", L, X, med[X],
					q(v, n, .25), q(v, n, .75), d, r
				if (SUMMARY != "")
					printf "  inside, %-28s %-14s %+8.2f ms  %6.3fx %s\n",
						(L in label ? label[L] : L) (COL == 5 ? ", cpu" : ""), X, d, r,
						"(" n " rounds)" >>SUMMARY
			}
		}
	}
}
