# pairstat.awk: one line of `make bench` comparing two rows of a spawnbench
# raw file (-r: round, name, wall ms, inner ms, cpu ms), A with the shim
# and B the same sandbox without it. Runs of A and B in the same round are
# pairs: their ratio (or difference) cancels what drifted between rounds.
#
#   awk -v A=NAME -v B=NAME -v COL=3|4|5 -v LABEL=TEXT -v KIND=ratio|perop|diff
#       [-v OPS=N] [-v TARGET=X] [-v WIDTH=N] [-v SUMMARY=FILE] \
#       -f quantile.awk -f pairstat.awk RAW
#
# COL 3 is the wall time of the whole command, 4 the time the command
# reported for its own work, 5 the CPU time (user + system) of the whole
# process tree, which waiting for a CPU that other programs use does not
# inflate. KIND ratio: median(A)/median(B), shown as an overhead in %
# against TARGET (%); KIND perop: (median(A) - median(B)) / OPS, in µs per
# operation, against TARGET (µs); KIND diff: median(A) - median(B) in ms.
# Without TARGET the line has no verdict; with SUMMARY, a line with the
# figure and the verdict is appended to FILE. Quantiles are computed as
# spawnbench computes them.
#
# The verdict compares the ratio (or difference) of the medians with
# TARGET. When the rounds scatter so much that the 95% interval of the
# per-round median (median +- 1.58 IQR / sqrt(n), McGill's notch) lies on
# both sides of TARGET, the verdict says "inconclusive" instead: more
# rounds or a quieter machine are needed to decide.

# "meets", "misses", or "inconclusive" when the notch of the per-round
# values V (sorted, N of them, scaled by K) straddles TARGET.
function judge(fig, v, n, k,    m, h) {
	m = q(v, n, .5) * k
	h = 1.58 * (q(v, n, .75) - q(v, n, .25)) * k / sqrt(n)
	if (m - h <= TARGET && TARGET < m + h)
		return sprintf("inconclusive (95%% interval %.2f..%.2f)", m - h, m + h)
	return fig <= TARGET ? "meets" : "misses"
}

BEGIN { FS = "\t"; na = nb = 0 }
/^#/ { next }
$2 == A { a[++na] = $COL; ra[$1] = $COL }
$2 == B { b[++nb] = $COL; rb[$1] = $COL }

END {
	if (na == 0 || nb == 0) {
		printf "%s: no runs of %s or %s\n", LABEL, A, B
		exit 1
	}
	np = 0
	for (r in ra)
		if (r in rb) {
			np++
			pr[np] = ra[r] / rb[r]
			pd[np] = ra[r] - rb[r]
		}
	sort(a, na); sort(b, nb); sort(pr, np); sort(pd, np)
	ma = q(a, na, .5); mb = q(b, nb, .5)
	if (WIDTH == "")
		WIDTH = 28
	printf "  %-*s %s %9.3f ms [%.3f..%.3f]   %s %9.3f ms [%.3f..%.3f]\n", WIDTH, LABEL,
		"shim", ma, q(a, na, .25), q(a, na, .75),
		"no shim", mb, q(b, nb, .25), q(b, nb, .75)
	verdict = ""
	if (KIND == "diff") {
		fig = sprintf("%+.3f ms", ma - mb)
		printf "  %-*s => %s (per-round: median %+.3f, p25..p75 %+.3f..%+.3f)",
			WIDTH, "", fig, q(pd, np, .5), q(pd, np, .25), q(pd, np, .75)
	} else if (KIND == "perop") {
		per = (ma - mb) * 1000 / OPS
		fig = sprintf("%+.2f µs per call", per)
		printf "  %-*s => %+.2f µs per call (per-round: median %+.2f, p25..p75 %+.2f..%+.2f)",
			WIDTH, "", per, q(pd, np, .5) * 1000 / OPS, q(pd, np, .25) * 1000 / OPS,
			q(pd, np, .75) * 1000 / OPS
		if (TARGET != "")
			verdict = sprintf("target <= %g µs: %s", TARGET, judge(per, pd, np, 1000 / OPS))
	} else {
		ratio = ma / mb
		fig = sprintf("%+.2f%% (ratio %.4f)", (ratio - 1) * 100, ratio)
		printf "  %-*s => ratio %.4f (%+.2f%%) (per-round: median %.4f, p25..p75 %.4f..%.4f)",
			WIDTH, "", ratio, (ratio - 1) * 100, q(pr, np, .5), q(pr, np, .25), q(pr, np, .75)
		if (TARGET != "") {
			for (i = 1; i <= np; i++)
				pp[i] = (pr[i] - 1) * 100
			verdict = sprintf("target <= %g%%: %s", TARGET, judge((ratio - 1) * 100, pp, np, 1))
		}
	}
	if (verdict != "")
		printf "   %s", verdict
	printf "\n"
	if (SUMMARY != "")
		printf "  %-*s %-28s %s\n", WIDTH, LABEL, fig, verdict >>SUMMARY
}
