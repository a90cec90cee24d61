# insidestat.awk: the cost inside the sandbox, start-up taken out, from a
# spawnbench raw file (-r: round, name, wall ms, inner ms, cpu ms) whose
# rows are named WORKLOAD:WRAPPER, with a row true:WRAPPER for each
# wrapper (`/bin/true` under the same wrapper, in the same rounds).
#
#   awk -v WORKLOADS="read loop" -v WRAPPERS="bare wicket ..." \
#       [-v LABELS="read=TEXT;loop=TEXT"] [-v SUMMARY=FILE] -f insidestat.awk RAW
#
# For each round, inside(L, X) = wall(L:X) - wall(true:X): what running
# workload L costs under wrapper X once X has started. Per workload and
# wrapper it prints the median of inside over the rounds (p25..p75), the
# extra cost against bare, median(inside(L, X)) - median(inside(L, bare)),
# and the ratio median(inside(L, X)) / median(inside(L, bare)). The first
# wrapper of WRAPPERS is the reference ("bare").

function sort(v, n,    i, j, x) {
	for (i = 2; i <= n; i++) {
		x = v[i]
		for (j = i - 1; j >= 1 && v[j] > x; j--)
			v[j + 1] = v[j]
		v[j + 1] = x
	}
}

# Quantile P of the sorted V[1..N], linear between the closest ranks.
function q(v, n, p,    h, lo) {
	if (n == 0)
		return 0
	h = (n - 1) * p + 1
	lo = int(h)
	if (lo >= n)
		return v[n]
	return v[lo] + (h - lo) * (v[lo + 1] - v[lo])
}

!/^#/ { wall[$2, $1] = $3; seen[$1] = 1 }

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
			med[X] = q(v, n, .5)
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
						(L in label ? label[L] : L), X, d, r, "(" n " rounds)" >>SUMMARY
			}
		}
	}
}
