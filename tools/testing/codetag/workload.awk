# SPDX-License-Identifier: GPL-2.0
#
# bench.sh distro and distro612: the tables of workload runs
# (guest/workload.sh), one file a run, in the order of the columns.
#
#   names    the columns' names, comma-separated
#            (default "out,off,on,out again", the 6.1 table)
#   ratios   the ratio columns, comma-separated "A/B=LABEL": run A's
#            figure against run B's (default "2/1=off/out,3/1=on/out,
#            4/1=again/out")
#   kbruns   the first kbruns runs have a column of kB in the table of the
#            caches laid out otherwise in run 2 than in run 1 (default 3),
#            sorted by what they hold in run 3

function pct(a, b) { return b ? sprintf("%+.2f%%", (a / b - 1) * 100) : "-" }

BEGIN {
	if (names == "")
		names = "out,off,on,out again"
	if (ratios == "")
		ratios = "2/1=off/out,3/1=on/out,4/1=again/out"
	if (kbruns == "")
		kbruns = 3
	ncol = split(names, col, ",")
	nratio = split(ratios, ratio, ",")
	for (i = 1; i <= nratio; i++) {
		split(ratio[i], p, "=")
		rlabel[i] = p[2]
		split(p[1], ab, "/")
		ra[i] = ab[1]
		rb[i] = ab[2]
	}
}

FNR == 1 { run++ }

$1 == "busy_ns" || $1 == "idle_ns" || $1 == "in_use_kb" || $1 == "status" ||
$1 == "skipped" {
	v[run, $1] = $2
}
$1 == "meminfo" { v[run, $2] = $3 }
$1 == "vector_bytes" { v[run, "vector_kb"] = sprintf("%d", $2 / 1024) }
# "slab NAME ACTIVE OBJS SLAB_SIZE PER_SLAB PAGES : tunables ... :
# slabdata ACTIVE_SLABS SLABS SHARED"
$1 == "slab" {
	name[$2] = 1
	objs[run, $2] = $4
	# slab_size, objects per slab, pages per slab
	layout[run, $2] = $5 "/" $6 "/" $7
	kb[run, $2] = $16 * $7 * 4
	# Upstream's design cost for the same objects: 8 bytes each.
	bytes8[run] += $4 * 8
	v[run, "upstream_kb"] = sprintf("%d", bytes8[run] / 1024)
}
$1 == "log" && run == 2 {
	sub(/^log /, "")
	logline[++nlog] = $0
}

END {
	printf "%-26s", ""
	for (r = 1; r <= ncol; r++)
		printf " %14s", col[r]
	for (i = 1; i <= nratio; i++)
		printf " %9s", rlabel[i]
	printf "\n"
	row("instructions", "busy_ns", 1)
	row("  (idle time, ns)", "idle_ns", 0)
	row("stress-ng exit status", "status", 0)
	row("  stressors skipped", "skipped", 0)
	row("Slab (kB)", "Slab", 1)
	row("  SUnreclaim (kB)", "SUnreclaim", 1)
	row("  slab vectors (kB)", "vector_kb", 0)
	row("  objects x 8 bytes (kB)", "upstream_kb", 0)
	row("memory in use (kB)", "in_use_kb", 1)

	# Caches laid out otherwise in run 2 than in run 1.
	n = 0
	for (c in name) {
		if (!((1, c) in layout) || !((2, c) in layout)) {
			only++
			continue
		}
		both++
		if (layout[2, c] == layout[1, c])
			continue
		changed[++n] = c
		for (r = 1; r <= kbruns; r++)
			total[r] += kb[r, c]
	}
	# Sorted by what they hold in run 3, most first.
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && kb[3, changed[j]] > kb[3, changed[j - 1]]; j--) {
			t = changed[j]; changed[j] = changed[j - 1]; changed[j - 1] = t
		}
	printf "\n%d of %d slab caches are laid out otherwise in %s than in %s\n",
		n, both, col[2], col[1]
	printf "(slab_size/objects per slab/pages per slab; their slabs, kB):\n"
	printf "  %-24s %12s %12s %9s", "cache", col[1], col[2], "objects"
	for (r = 1; r <= kbruns; r++)
		printf " %10s", "kB " col[r]
	printf "\n"
	for (i = 1; i <= n; i++) {
		c = changed[i]
		if (i > 25) {
			printf "  ... %d more\n", n - 25
			break
		}
		printf "  %-24s %12s %12s %9d", c, layout[1, c], layout[2, c], objs[3, c]
		for (r = 1; r <= kbruns; r++)
			printf " %10d", kb[r, c]
		printf "\n"
	}
	printf "  %-24s %12s %12s %9s", "all of them", "", "", ""
	for (r = 1; r <= kbruns; r++)
		printf " %10d", total[r]
	printf "\n"
	if (only)
		printf "%d caches exist in one kernel only (merged differently)\n", only
	if (nlog) {
		printf "\nthe boot log on page tags and page_ext, in %s:\n", col[2]
		for (i = 1; i <= nlog; i++)
			printf "  %s\n", logline[i]
	}
}

function row(label, key, ratios,    r, i) {
	printf "%-26s", label
	for (r = 1; r <= ncol; r++)
		printf " %14s", (r, key) in v ? v[r, key] : "-"
	if (ratios)
		for (i = 1; i <= nratio; i++)
			printf " %9s", pct(v[ra[i], key], v[rb[i], key])
	printf "\n"
}
