# SPDX-License-Identifier: GPL-2.0
#
# bench.sh distro: the tables of four workload runs (guest/workload.sh),
# given as files in the order out, off, on, out again.

function pct(a, b) { return b ? sprintf("%+.2f%%", (a / b - 1) * 100) : "-" }

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
	split("out off on out2", col)
	printf "%-26s %14s %14s %14s %14s %9s %9s %9s\n", "", "out", "off", "on",
		"out again", "off/out", "on/out", "again/out"
	row("instructions", "busy_ns", 1)
	row("  (idle time, ns)", "idle_ns", 0)
	row("stress-ng exit status", "status", 0)
	row("  stressors skipped", "skipped", 0)
	row("Slab (kB)", "Slab", 1)
	row("  SUnreclaim (kB)", "SUnreclaim", 1)
	row("  slab vectors (kB)", "vector_kb", 0)
	row("  objects x 8 bytes (kB)", "upstream_kb", 0)
	row("memory in use (kB)", "in_use_kb", 1)

	# Caches laid out otherwise than without the option.
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
		for (r = 1; r <= 3; r++)
			total[r] += kb[r, c]
	}
	# Sorted by what they hold with profiling on, most first.
	for (i = 2; i <= n; i++)
		for (j = i; j > 1 && kb[3, changed[j]] > kb[3, changed[j - 1]]; j--) {
			t = changed[j]; changed[j] = changed[j - 1]; changed[j - 1] = t
		}
	printf "\n%d of %d slab caches are laid out otherwise than without the option\n",
		n, both
	printf "(slab_size/objects per slab/pages per slab; their slabs, kB):\n"
	printf "  %-24s %12s %12s %9s %10s %10s %10s\n", "cache", "out", "in",
		"objects", "kB out", "kB off", "kB on"
	for (i = 1; i <= n; i++) {
		c = changed[i]
		if (i > 25) {
			printf "  ... %d more\n", n - 25
			break
		}
		printf "  %-24s %12s %12s %9d %10d %10d %10d\n", c, layout[1, c],
			layout[2, c], objs[3, c], kb[1, c], kb[2, c], kb[3, c]
	}
	printf "  %-24s %12s %12s %9s %10d %10d %10d\n", "all of them", "", "", "",
		total[1], total[2], total[3]
	if (only)
		printf "%d caches exist in one kernel only (merged differently)\n", only
	if (nlog) {
		printf "\nthe boot log on page tags and page_ext, with the option:\n"
		for (i = 1; i <= nlog; i++)
			printf "  %s\n", logline[i]
	}
}

function row(label, key, ratios,    r) {
	printf "%-26s", label
	for (r = 1; r <= 4; r++)
		printf " %14s", (r, key) in v ? v[r, key] : "-"
	if (ratios)
		printf " %9s %9s %9s", pct(v[2, key], v[1, key]),
			pct(v[3, key], v[1, key]), pct(v[4, key], v[1, key])
	printf "\n"
}
