# ipcstat.awk: the lines of `make bench`'s ipc section. Each workload W
# ran under each wrapper X (rows named W:X in a spawnbench raw file: round,
# name, wall ms, inner ms, cpu ms) in the same rounds; the inner time is
# the workload's own (its start-up under the wrapper left out).
#
#   awk -v WORK=W -v OPS=N -v UNIT=TEXT -v LABEL=TEXT [-v TARGET_US=X]
#       [-v TARGET_BWRAP=R] [-v SUMMARY=FILE] -f quantile.awk -f ipcstat.awk RAW
#
# Prints the median time per operation under each wrapper in µs (p25..p75
# of the runs), then wicket's against bare and against bwrap: the ratio of
# the medians, with p25..p75 of the ratio taken round by round (a round's
# runs are neighbours in time, so the ratio cancels what drifted). Targets:
# TARGET_US (µs per operation under wicket), TARGET_BWRAP (wicket / bwrap).
# Rows W:rtt and W:emulate (bench/notifyrtt) add the floor of any
# supervisor of that workload; rows W:old (WICKET_OLD) another build of
# wicket, against which wicket's time and CPU time (user + system of the
# whole run, start-up included) are compared round by round.

BEGIN { FS = "\t" }
/^#/ { next }
{
	split($2, nx, ":")
	if (nx[1] != WORK)
		next
	x = nx[2]
	n[x]++
	v[x, n[x]] = $4
	by[x, $1] = $4
	cpu[x, $1] = $5
	rounds[$1] = 1
}

function med_of(x,    i, a, k) {
	k = n[x]
	for (i = 1; i <= k; i++)
		a[i] = v[x, i]
	sort(a, k)
	lo[x] = q(a, k, .25) * 1000 / OPS
	hi[x] = q(a, k, .75) * 1000 / OPS
	return q(a, k, .5) * 1000 / OPS
}

# The median CPU time of X's runs, in µs per operation.
function cpu_med(x,    r, k, a) {
	k = 0
	for (r in rounds)
		if ((x, r) in cpu)
			a[++k] = cpu[x, r]
	sort(a, k)
	return k ? q(a, k, .5) * 1000 / OPS : 0
}

# The ratio A/B, and its per-round quartiles in RQ25, RQ75.
function ratio(a, b,    r, k, pr) {
	k = 0
	for (r in rounds)
		if ((a, r) in by && (b, r) in by && by[b, r] > 0)
			pr[++k] = by[a, r] / by[b, r]
	sort(pr, k)
	rq25 = k ? q(pr, k, .25) : 0
	rq75 = k ? q(pr, k, .75) : 0
	return m[a] / m[b]
}

END {
	if (!n["bare"] || !n["wicket"]) {
		printf "  %s: no runs\n", LABEL
		exit 1
	}
	line = ""
	split("bare bwrap wicket old", xs, " ")
	for (i = 1; i <= 4; i++) {
		x = xs[i]
		if (!n[x])
			continue
		m[x] = med_of(x)
		line = line sprintf("  %s %.2f [%.2f..%.2f]", x, m[x], lo[x], hi[x])
	}
	printf "  %-30s µs per %s:%s\n", LABEL, UNIT, line
	rb = ratio("wicket", "bare")
	printf "  %-30s wicket/bare %.2f (per round %.2f..%.2f)", "", rb, rq25, rq75
	fig = sprintf("%.2f µs per %s, %.2fx bare", m["wicket"], UNIT, rb)
	if (n["bwrap"]) {
		rw = ratio("wicket", "bwrap")
		printf ", wicket/bwrap %.2f (per round %.2f..%.2f)", rw, rq25, rq75
		fig = fig sprintf(", %.2fx bwrap", rw)
	}
	verdict = ""
	if (TARGET_US != "")
		verdict = sprintf("target <= %g µs: %s", TARGET_US, m["wicket"] <= TARGET_US ? "met" : "NOT met")
	if (TARGET_BWRAP != "" && n["bwrap"])
		verdict = sprintf("target <= %gx bwrap: %s", TARGET_BWRAP, rw <= TARGET_BWRAP ? "met" : "NOT met")
	print verdict != "" ? "   " verdict : ""
	if (n["old"]) {
		ro = ratio("wicket", "old")
		printf "  %-30s wicket/old %.2f (per round %.2f..%.2f)", "", ro, rq25, rq75
		for (r in rounds)
			if (("wicket", r) in cpu && ("old", r) in cpu)
				cpu_ratio[++kc] = cpu["wicket", r] / cpu["old", r]
		sort(cpu_ratio, kc)
		if (kc)
			printf ", cpu wicket/old %.2f (per round %.2f..%.2f)", q(cpu_ratio, kc, .5),
				q(cpu_ratio, kc, .25), q(cpu_ratio, kc, .75)
		print ""
		printf "  %-30s cpu µs per %s (whole run / %d): bare %.2f, wicket %.2f, old %.2f\n", "",
			UNIT, OPS, cpu_med("bare"), cpu_med("wicket"), cpu_med("old")
		fig = fig sprintf(", %.2fx old", ro)
	}
	# The floor (bench/notifyrtt, the pair only): the notification's round
	# trip alone, and the fewest calls a send made by the supervisor needs.
	if (n["rtt"] && n["emulate"]) {
		m["rtt"] = med_of("rtt")
		m["emulate"] = med_of("emulate")
		printf "  %-30s floor: round trip %.2f µs, minimal supervisor %.2f µs; wicket - minimal %.2f µs\n",
			"", m["rtt"], m["emulate"], m["wicket"] - m["emulate"]
		fig = fig sprintf(" (floor %.2f, minimal supervisor %.2f)", m["rtt"], m["emulate"])
	}
	if (SUMMARY != "")
		printf "  %-30s %s%s\n", LABEL, fig, verdict != "" ? "   " verdict : "" >>SUMMARY
}
