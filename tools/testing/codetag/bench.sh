#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make bench": what the framework costs, measured in one run.
#
#   bench.sh [micro|arm64|6.12|distro|distro612|all]  (all by default;
#                           arm64 is the arm64 half of micro)
#
# Every guest runs under "qemu -icount shift=0,sleep=off" with one vCPU:
# one guest nanosecond is one instruction, so the figures are instruction
# counts that repeat whatever else the host is doing.
#
# micro: instructions per allocate+free pair. Columns: the guest kernel
# built without allocation profiling or fault points ("out"), the guest
# kernel with both compiled in but booted with sysctl.vm.mem_profiling=0
# ("off"), and the same kernel with it on ("on"); then the same three of
# upstream Linux 6.12's allocation profiling (Debian's linux-source-6.12,
# the same guest configuration, the same benchmark module), and how our
# overhead compares with upstream's on each row. A second table isolates
# the fault points: the guest kernel built without them ("no points"),
# against "off", and "off" booted with one memory fault point armed
# elsewhere ("armed"), which makes every allocator test for a pending
# fault. All three with profiling off. Then the same two tables for the
# arm64 guests (qemu-system-aarch64, "virt", -cpu max).
#
# 6.12: what the 6.12 series costs on top of upstream 6.12, on the x86-64
# guest's configuration: upstream 6.12 built without allocation profiling
# ("out") and with it, booted off and on, against the 6.12 series' guest
# kernel, the same configuration with the series' applications compiled
# in, booted off and on, and off with one memory fault point armed
# elsewhere ("armed").
#
# distro: what users pay, on Debian's own configuration and a real
# workload: a fixed stress-ng run (guest/workload.sh) on the distro kernel
# built without profiling ("out", the distro-nopro flavour, which only
# this builds), and on the distro kernel booted off and on. Instructions,
# memory in use, every slab cache laid out otherwise than without the
# option, the kernel's size, and where the page tags live.
#
# distro612: the same workload on Debian's 6.12 configuration: upstream
# 6.12 with its allocation profiling compiled in (the distro-up612
# flavour, which only this builds; Debian's own 6.12 kernel compiles it
# out, and the series builds on it) against the 6.12 series' distro
# kernel, both booted off and on, and upstream off once more for how far
# two runs of one kernel differ.

set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# The kernels measured without the KUnit suites that make check's
# kernels carry, in object trees of their own (harness.sh out_dir()).
export CODETAG_BENCH=1

PART=${1:-all}
case $PART in
micro|arm64|6.12|distro|distro612|all) ;;
*) echo "usage: bench.sh [micro|arm64|6.12|distro|distro612|all]" >&2; exit 2 ;;
esac

# boot_run MODE FLAVOR NAME [CMDLINE]: one boot of FLAVOR in MODE (bench
# or workload), its results in MODE-NAME.txt
boot_run() {
	CODETAG_APPEND=${4:-} quiet "$1-$3" "$H" boot "$2" "$1"
	tr -d '\r' < "$B/$1-$2.txt" > "$B/$1-$3.txt"
	grep -q '^done$' "$B/$1-$3.txt" || {
		echo "bench: the $3 $1 boot did not finish (log: build/logs/$1-$3.log)" >&2
		exit 1
	}
}
run() { boot_run bench "$@"; }
workload() { boot_run workload "$@"; }

# micro [arm64-]: the x86-64 guests, or with "arm64-" the arm64 ones, whose
# flavours and results have that prefix.
micro() {
	local p=${1:-} guest flavor
	guest=${p:-guest}
	guest=${guest%-}
	echo
	echo "$(case $p in arm64-) echo arm64 ;; *) echo x86-64 ;; esac) guest, one vCPU under qemu -icount"
	for flavor in ${p}nopro ${p}nofault $guest ${p}up612-nopro ${p}up612; do
		quiet "kernel-$flavor" "$H" kernel "$flavor"
		quiet "initramfs-$flavor" "$H" initramfs "$flavor"
	done
	run ${p}nopro ${p}out
	run $guest ${p}off sysctl.vm.mem_profiling=0
	run $guest ${p}on sysctl.vm.mem_profiling=1
	run ${p}nofault ${p}nopoints sysctl.vm.mem_profiling=0
	run $guest ${p}armed 'sysctl.vm.mem_profiling=0 dynamic_fault="func alloc_vfsmnt probability 0"'
	run ${p}up612-nopro ${p}up-out
	run ${p}up612 ${p}up-off sysctl.vm.mem_profiling=0
	run ${p}up612 ${p}up-on sysctl.vm.mem_profiling=1

	rows() { grep -v '^done$\|^mem_\|^slab \|^call\|^time_stats\|^ktime\|^errno_\|^syscall_\|+ctx ' "$B/bench-$p$1.txt"; }
	col() { awk -v r="$2" '$1 == r { print $2 }' "$B/bench-$p$1.txt"; }

	printf '%-22s %9s %9s %9s %7s %7s  %9s %9s %9s %7s %7s  %8s\n' "allocate+free pair" \
		out off on "off" "on" "6.12 out" off on "off" "on" "on/6.12"
	printf '%-22s %9s %9s %9s %7s %7s  %9s %9s %9s %7s %7s  %8s\n' "(instructions)" \
		"" "" "" "/out" "/out" "" "" "" "/out" "/out" "overhead"
	rows out | while read -r row out; do
		awk -v r="$row" -v a="$out" -v b="$(col off "$row")" -v c="$(col on "$row")" \
		    -v ua="$(col up-out "$row")" -v ub="$(col up-off "$row")" \
		    -v uc="$(col up-on "$row")" 'BEGIN {
			printf "%-22s %9s %9s %9s %+6.1f%% %+6.1f%%  %9s %9s %9s %+6.1f%% %+6.1f%%  %7.0f%%\n",
				r, a, b, c, (b / a - 1) * 100, (c / a - 1) * 100,
				ua, ub, uc, (ub / ua - 1) * 100, (uc / ua - 1) * 100,
				(c / a - 1) / (uc / ua - 1) * 100 }'
	done
	echo "targets: off/out at most +2%; on/out at most half of 6.12's (on/6.12 overhead <= 50%)"
	# Where a kmalloc pair's instructions go: its call site's hook, and
	# the allocator itself (kmalloc_noprof() has no call site hook).
	for m in out off on up-out up-off up-on; do
		awk -v m="$m" '{ v[$1] = $2 } END {
			printf "  %-7s kmalloc-64 %7.2f = call site %6.2f + allocator %7.2f\n", m,
				v["kmalloc-64"], v["kmalloc-64"] - v["kmalloc_noprof-64"], v["kmalloc_noprof-64"] }' \
			"$B/bench-$p$m.txt"
	done

	echo
	awk '{ v[$1] = $2 }
	     END {
		printf "alloc_tags.ctx, a kmalloc-64 pair at an enabled site: %.2f instructions, %+.2f over\n",
			v["kmalloc-64+ctx"], v["kmalloc-64+ctx"] - v["kmalloc-64"]
		printf "the same pair at a site that is not enabled (%.2f): capture, stack depot lookup, drop\n",
			v["kmalloc-64"]
	     }' "$B/bench-${p}on.txt"

	echo
	printf '%-22s %10s %10s %10s %9s %9s\n' "fault points" "no points" off armed "off-no" "armed-no"
	printf '%-22s %10s %10s %10s %9s %9s\n' "(instructions)" "" "" "" "" ""
	rows nopoints | while read -r row none; do
		awk -v r="$row" -v a="$none" -v b="$(col off "$row")" -v c="$(col armed "$row")" 'BEGIN {
			printf "%-22s %10s %10s %10s %+9.2f %+9.2f\n", r, a, b, c, b - a, c - a }'
	done
	point_cost() {
		awk -v w="$1" -v a="$(col off "$2")" -v b="$(col off "$2+fault_point")" 'BEGIN {
			printf "a disarmed dynamic_fault() point %s: %.2f instructions per call (%.2f without, %.2f with)\n", w, b - a, a, b }'
	}
	point_cost "in a function that calls others" call
	point_cost "in a leaf function" call_leaf

	echo
	awk '$1 == "ktime_get_ns" { c = $2 } $1 == "time_stats_record" { r = $2 }
	     $1 == "time_stats_start+end" { p = $2 }
	     END {
		printf "time_stats, one recording: %.2f instructions in time_stats_record(), %.2f for a\n", r, p
		printf "start+end pair with its two clock reads (%.2f each): %.2f beyond them\n", c, p - 2 * c
	     }' "$B/bench-${p}off.txt"

	echo
	awk '{ v[$1] = $2 }
	     END {
		printf "ERR(EINVAL) against -EINVAL, per call: %+.2f instructions on the error path (%.2f, %.2f),\n",
			v["errno_fail_ERR"] - v["errno_fail_plain"], v["errno_fail_plain"], v["errno_fail_ERR"]
		printf "%+.2f on the success path (%.2f, %.2f)\n",
			v["errno_ok_ERR"] - v["errno_ok_plain"], v["errno_ok_plain"], v["errno_ok_ERR"]
	     }' "$B/bench-${p}off.txt"
	awk '{ v[$1] = $2 }
	     END {
		if (!("syscall_fail_ERR" in v))
			exit
		printf "a write(2) that fails, from userspace: %.2f instructions with -EINVAL, %.2f with\n",
			v["syscall_fail_plain"], v["syscall_fail_ERR"]
		printf "ERR(EINVAL) (%+.2f: its class at system call exit)",
			v["syscall_fail_ERR"] - v["syscall_fail_plain"]
		if ("syscall_fail_ERR_traced" in v)
			printf ", %.2f with errcode_syscall_exit\nenabled (%+.2f: the event)",
				v["syscall_fail_ERR_traced"],
				v["syscall_fail_ERR_traced"] - v["syscall_fail_ERR"]
		printf "\n"
	     }' "$B/bench-${p}off.txt"

	# The framework's memory: what the guest has in use beyond the kernel
	# built without it, after the same boot and workload (1 GiB guest).
	memory_line() {
		awk -v title="$1" '$1 == "mem_free_kb" { f[FILENAME] = $2 }
		     END {
			out = f[ARGV[1]]; off = f[ARGV[2]]; on = f[ARGV[3]]
			printf "%s\n", title
			printf "  off: %d kB (%.3f%% of RAM)   on: %d kB (%.3f%% of RAM)\n",
				out - off, (out - off) * 100 / 1048576, out - on, (out - on) * 100 / 1048576
		     }' "$B/bench-$p$2.txt" "$B/bench-$p$3.txt" "$B/bench-$p$4.txt"
	}
	echo
	memory_line "memory in use beyond the compiled-out kernel, 1 GiB guest after boot and a workload:" \
		out off on
	memory_line "  upstream 6.12, against its own compiled-out kernel:" up-out up-off up-on

	# Tags are kept outside the objects: every slab cache but task_struct
	# (the series' per-task fields) is laid out as without the option.
	echo
	awk '$1 == "slab" { k = $2; v = $3 " " $4 " " $5
		if (FILENAME == ARGV[1]) out[k] = v; else off[k] = v }
	     END {
		for (k in off) {
			n++
			if (!(k in out)) {
				m++
				d = d sprintf("  %s: only with the option (%s)\n", k, off[k])
			} else if (out[k] != off[k]) {
				if (k != "task_struct")
					m++
				d = d sprintf("  %s: %s without, %s with\n", k, out[k], off[k])
			}
		}
		for (k in out)
			if (!(k in off)) {
				m++
				d = d sprintf("  %s: only without the option (%s)\n", k, out[k])
			}
		printf "slab caches laid out otherwise than without the option, task_struct aside: %d of %d\n", m + 0, n
		printf "%s", d
	     }' "$B/bench-${p}out.txt" "$B/bench-${p}off.txt"
}

# boot_run612 MODE FLAVOR NAME [CMDLINE]: boot_run of the 6.12 series'
# FLAVOR, its results in MODE-612-NAME.txt beside the others.
boot_run612() {
	CODETAG_APPEND=${4:-} KERNEL=6.12 quiet "$1-612-$3" "$H" boot "$2" "$1"
	tr -d '\r' < "$B/6.12/$1-$2.txt" > "$B/$1-612-$3.txt"
	grep -q '^done$' "$B/$1-612-$3.txt" || {
		echo "bench: the 6.12 $3 $1 boot did not finish (log: build/logs/$1-612-$3.log)" >&2
		exit 1
	}
}
# boot612 NAME [CMDLINE]: a bench boot of the 6.12 series' guest.
boot612() { boot_run612 bench guest "$@"; }
# workload612 NAME [CMDLINE]: a workload boot of its distro kernel.
workload612() { boot_run612 workload distro "$@"; }

micro612() {
	local flavor
	for flavor in up612-nopro up612; do
		quiet "kernel-$flavor" "$H" kernel "$flavor"
		quiet "initramfs-$flavor" "$H" initramfs "$flavor"
	done
	quiet tree-612 env KERNEL=6.12 "$H" tree
	quiet kernel-612-guest env KERNEL=6.12 "$H" kernel guest
	quiet initramfs-612-guest env KERNEL=6.12 "$H" initramfs guest
	run up612-nopro up-out
	run up612 up-off sysctl.vm.mem_profiling=0
	run up612 up-on sysctl.vm.mem_profiling=1
	boot612 off sysctl.vm.mem_profiling=0
	boot612 on sysctl.vm.mem_profiling=1
	boot612 armed 'sysctl.vm.mem_profiling=0 dynamic_fault="func alloc_vfsmnt probability 0"'

	col() { awk -v r="$2" '$1 == r { print $2 }' "$B/bench-$1.txt"; }
	echo
	echo "Linux 6.12, x86-64 guest, one vCPU under qemu -icount: upstream against"
	echo "the 6.12 series (its applications compiled in), same configuration"
	printf '%-22s %9s %9s %9s %9s %7s %9s %7s %9s %8s
' "allocate+free pair" \
		"up out" "up off" "ours off" "armed" "off" "up on" "on" "ours on" "on"
	printf '%-22s %9s %9s %9s %9s %7s %9s %7s %9s %8s
' "(instructions)" \
		"" "" "" "" "/up" "" "/up out" "" "/up on"
	grep -v '^done$\|^mem_\|^slab \|^call\|^time_stats\|^ktime\|^errno_\|^syscall_\|+ctx ' \
		"$B/bench-up-out.txt" | while read -r row out; do
		awk -v r="$row" -v o="$out" -v uf="$(col up-off "$row")" \
		    -v of="$(col 612-off "$row")" -v a="$(col 612-armed "$row")" \
		    -v un="$(col up-on "$row")" -v on="$(col 612-on "$row")" 'BEGIN {
			printf "%-22s %9s %9s %9s %9s %+6.2f%% %9s %+6.1f%% %9s %+7.2f%%\n",
				r, o, uf, of, a, (of / uf - 1) * 100, un, (un / o - 1) * 100,
				on, (on / un - 1) * 100 }'
	done
	echo "targets: the series compiled in costs under 1% on top of upstream's own figures (off/up, on/up on)"
	memory_612() {
		awk '$1 == "mem_free_kb" { f[FILENAME] = $2 }
		     END { printf "memory in use beyond upstream 6.12, 1 GiB guest after boot and a workload: off %d kB, on %d kB\n",
				f[ARGV[1]] - f[ARGV[2]], f[ARGV[3]] - f[ARGV[4]] }' \
			"$B/bench-up-off.txt" "$B/bench-612-off.txt" "$B/bench-up-on.txt" "$B/bench-612-on.txt"
	}
	memory_612
}

# image_sizes NAME VMLINUX...: a table of the kernels' text, data and bss.
image_sizes() {
	echo
	echo "kernel image (size vmlinux)         text       data        bss"
	while [ $# -ge 2 ]; do
		size "$2" | awk -v n="$1" 'NR == 2 {
			printf "  %-28s %10d %10d %10d\n", n, $1, $2, $3 }'
		shift 2
	done
}

distro() {
	local flavor name
	for flavor in distro-nopro distro; do
		quiet "kernel-$flavor" "$H" kernel "$flavor"
		quiet "initramfs-$flavor" "$H" initramfs "$flavor"
	done
	workload distro-nopro out
	workload distro off sysctl.vm.mem_profiling=0
	workload distro on sysctl.vm.mem_profiling=1
	# Once more without the option: how far two runs of one kernel differ.
	workload distro-nopro out2

	echo
	echo "Debian's 6.1 configuration, one stress-ng run (guest/workload.sh), one vCPU,"
	echo "2 GiB in two NUMA nodes; memory taken at the end of the run"
	awk -f "$HARNESS/workload.awk" "$B/workload-out.txt" "$B/workload-off.txt" \
		"$B/workload-on.txt" "$B/workload-out2.txt"

	image_sizes distro-nopro "$B/linux/out-distro-nopro/vmlinux" \
		distro "$B/linux/out-distro/vmlinux"
}

distro612() {
	local up ours
	quiet kernel-distro-up612 "$H" kernel distro-up612
	quiet initramfs-distro-up612 "$H" initramfs distro-up612
	quiet tree-612 env KERNEL=6.12 "$H" tree
	quiet kernel-612-distro env KERNEL=6.12 "$H" kernel distro
	quiet initramfs-612-distro env KERNEL=6.12 "$H" initramfs distro
	# The two kernels' boots side by side: each has one vCPU, one host
	# thread, and its figures count instructions whatever the other does.
	( workload distro-up612 up-off sysctl.vm.mem_profiling=0
	  workload distro-up612 up-on sysctl.vm.mem_profiling=1
	  workload distro-up612 up-off2 sysctl.vm.mem_profiling=0 ) &
	up=$!
	( workload612 off sysctl.vm.mem_profiling=0
	  workload612 on sysctl.vm.mem_profiling=1 ) &
	ours=$!
	wait $up
	wait $ours

	echo
	echo "Debian's 6.12 configuration, one stress-ng run (guest/workload.sh), one vCPU,"
	echo "2 GiB in two NUMA nodes: upstream 6.12 with its profiling compiled in against"
	echo "the 6.12 series (its applications compiled in); memory taken at the end of the run"
	awk -v names="up off,ours off,ours on,up on,up off again" \
	    -v ratios="2/1=off/up,3/4=on/up on,5/1=again/up,4/1=up on/off" -v kbruns=4 \
	    -f "$HARNESS/workload.awk" "$B/workload-up-off.txt" "$B/workload-612-off.txt" \
		"$B/workload-612-on.txt" "$B/workload-up-on.txt" "$B/workload-up-off2.txt"
	echo "target: the series' applications, compiled in and off, cost nothing measurable (off/up within again/up)"

	image_sizes "upstream 6.12" "$B/linux-6.12/out-distro-up612/vmlinux" \
		"the 6.12 series" "$B/6.12/linux/out-distro/vmlinux"
}

quiet deps "$H" deps bench
quiet tree "$H" tree
case $PART in
micro)	micro; micro arm64- ;;
arm64)	micro arm64- ;;
6.12)	micro612 ;;
distro)	distro ;;
distro612) distro612 ;;
all)	micro; micro arm64-; micro612; distro; distro612 ;;
esac
