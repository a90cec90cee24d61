# quantile.awk: the sort and the quantiles of pairstat.awk and
# insidestat.awk, loaded before them (awk -f quantile.awk -f pairstat.awk).
# Quantiles are computed as spawnbench computes them.

function sort(v, n,    i, j, x) {
	for (i = 2; i <= n; i++) {
		x = v[i]
		for (j = i - 1; j >= 1 && v[j] > x; j--)
			v[j + 1] = v[j]
		v[j + 1] = x
	}
}

# Linear interpolation between closest ranks; V sorted, 1-based.
function q(v, n, p,    pos, i) {
	pos = p * (n - 1)
	i = int(pos)
	if (i >= n - 1)
		return v[n]
	return v[i + 1] + (pos - i) * (v[i + 2] - v[i + 1])
}
