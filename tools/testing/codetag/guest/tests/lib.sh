# SPDX-License-Identifier: GPL-2.0
# Helpers for the guest test scripts: one "ok"/"not ok" line per check.

RESULTS=${RESULTS:-/dev/ttyS1}

. /etc/profile

# The flavour booted. The debug ones (debug, arm64-debug) have KASAN,
# lockdep and MEM_ALLOC_PROFILING_DEBUG; the tag-based KASAN ones
# (arm64-swtags, arm64-hwtags) have MEM_ALLOC_PROFILING_DEBUG too.
FLAVOR=$(sed -n 's/.*codetag\.flavor=\([^ ]*\).*/\1/p' /proc/cmdline)
case $FLAVOR in
*debug)	DEBUG_FLAVOR=1 PROFILING_DEBUG=1 ;;
*tags)	DEBUG_FLAVOR= PROFILING_DEBUG=1 ;;
*)	DEBUG_FLAVOR= PROFILING_DEBUG= ;;
esac

# Page tables: asm-generic's __pte_alloc_one() is the allocation site. x86
# calls it from its own pte_alloc_one() (arch/x86/mm/pgtable.c); arm64
# takes asm-generic's pte_alloc_one(), inlined into its callers in
# mm/memory.c. The site's module: is the unit it is compiled into.
case $(uname -m) in
aarch64) PTE_MODULE=memory ;;
*) PTE_MODULE=pgtable ;;
esac

# Tests on both kernels branch on K612 where the 6.12 series and
# upstream's allocation profiling differ from the 6.1 series.
case $(uname -r) in
6.12*)	K612=1 ;;
*)	K612= ;;
esac

# alloc_sites: every allocation call site whose code is loaded, in the
# order the kernel lists them, as "file:line module:M func:F". On 6.1
# from alloc_tags (its sites kept for an unloaded module are marked, and
# left out); on 6.12 from upstream's /proc/allocinfo, which names a
# module's sites "[module]" and vmlinux's not at all.
alloc_sites() {
	if [ "$K612" ]; then
		awk 'NR > 2 { m = "vmlinux"; f = $4
			      if ($4 ~ /^\[/) { m = substr($4, 2, length($4) - 2); f = $5 }
			      print $3, "module:" m, f }' /proc/allocinfo
	else
		awk 'NF == 5 { print $3, $4, $5 }' /sys/kernel/debug/alloc_tags
	fi
}

# module_calls MODULE: the live allocations of MODULE's sites.
module_calls() {
	if [ "$K612" ]; then
		awk -v m="[$1]" 'NR > 2 && $4 == m { s += $2 } END { print s + 0 }' /proc/allocinfo
	else
		grep "module:$1 " /sys/kernel/debug/alloc_tags | awk '{ s += $2 } END { print s + 0 }'
	fi
}

# builtin UNIT: the module: of built-in code compiled in UNIT (fs/UNIT.c):
# the object's base name on 6.1, vmlinux on 6.12.
builtin() {
	if [ "$K612" ]; then echo vmlinux; else echo "$1"; fi
}

report() {
	echo "$*"
	echo "$*" >> "$RESULTS"
}

ok() { report "ok - $*"; }
# FAILED counts the checks that failed, for a script to say more on them.
FAILED=0
notok() { report "not ok - $*"; FAILED=$((FAILED + 1)); }

# detail: standard input, indented under the last check, to the console
# and to the results, where make check shows it next to a failure.
detail() {
	while IFS= read -r _line; do
		report "#   $_line"
	done
}

# as_user COMMAND...: COMMAND as nobody, as a user's programs run (the
# distro flavours' root image has setpriv).
as_user() { /usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }

# check DESCRIPTION COMMAND...: passes if COMMAND succeeds.
check() {
	desc=$1
	shift
	if "$@"; then ok "$desc"; else notok "$desc"; fi
}

# check_eq DESCRIPTION GOT WANT
check_eq() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		notok "$1"
		printf "got:  '%s'\nwant: '%s'\n" "$2" "$3" | detail
	fi
}

# The line of /sys/kernel/debug/codetag/types for type $1.
type_line() {
	grep "^$1 " /sys/kernel/debug/codetag/types || grep "^$1\$" /sys/kernel/debug/codetag/types
}

# split_under_lock ROUNDS: codetag_test_split's rounds (huge pages split
# while threads lock their tails), with shmem huge pages forced for them;
# prints the module's "rounds R split S waits W failed F".
split_under_lock() {
	_thp=/sys/kernel/mm/transparent_hugepage
	insmod /modules/codetag_test_split.ko || return 1
	_saved=$(sed 's/.*\[\(.*\)\].*/\1/' $_thp/shmem_enabled)
	echo force > $_thp/shmem_enabled
	echo "$1" > /sys/kernel/debug/codetag_test_split
	echo "$_saved" > $_thp/shmem_enabled
	cat /sys/kernel/debug/codetag_test_split
	rmmod codetag_test_split
}

# meminfo FIELD: value in kB.
meminfo() {
	awk -v f="$1:" '$1 == f { print $2 }' /proc/meminfo
}

# free_lists_kb: kB of free pages on the page allocator's per-CPU lists,
# which MemFree leaves out.
free_lists_kb() {
	awk '$1 == "count:" { s += $2 } END { print s * 4 }' /proc/zoneinfo
}

# free_kb: free memory in kB, the per-CPU lists' pages included: what a
# leak takes away, whatever the lists hold at the moment.
free_kb() {
	echo $(( $(meminfo MemFree) + $(free_lists_kb) ))
}

# site_growth OLD NEW: the allocation site whose live allocations grew
# most from allocinfo reading OLD to reading NEW, as "CALLS BYTES SITE".
# Lines of one text (an inline function of a header built into several
# objects) are summed, as allocinfo's readers do.
site_growth() {
	awk 'FNR <= 2 || NF < 3 { next }
	     { k = $0; sub(/^ *[0-9]+ +[0-9]+ /, "", k)
	       d = FILENAME == ARGV[1] ? -1 : 1
	       calls[k] += d * $2; bytes[k] += d * $1 }
	     END { for (k in calls)
			if (top == "" || calls[k] > calls[top]) top = k
		   print calls[top] + 0, bytes[top] + 0, top }' "$1" "$2"
}

# fail_site_once SITE: arm memory fault point SITE (file:line) of the
# codetag_test_fault module "oneshot", run the module's operation, disarm.
# Succeeds if the operation failed with -ENOMEM and the point injected its
# one fault; otherwise says why.
fail_site_once() {
	_f=/sys/kernel/debug/dynamic_faults
	_ok=0
	echo "file ${1%:*} line ${1##*:} oneshot" > $_f
	if echo 1 > /sys/kernel/debug/codetag_test_fault/run 2>/tmp/err; then
		echo "# $1: the operation did not fail"
		_ok=1
	elif ! grep -q 'Cannot allocate memory' /tmp/err; then
		echo "# $1: the operation failed with: $(cat /tmp/err)"
		_ok=1
	fi
	grep -q "^$1 .* faults:1\$" $_f || { echo "# $1: no fault injected"; _ok=1; }
	echo "file ${1%:*} line ${1##*:} disable" > $_f
	return $_ok
}

# A message logged since mark (dmesg line count taken by dmesg_mark): the
# harness boots with a log that does not fill (log_buf_len=4M).
dmesg_mark() { DMESG_MARK=$(dmesg | wc -l); }
dmesg_since() { dmesg | tail -n +$((DMESG_MARK + 1)); }

# no_negative_sites: succeeds if no allocation site's raw counters stay
# below zero. A sum can dip below zero for a moment (a free summed before
# the allocation it frees on another CPU): a site must be negative in two
# reads to count. Prints the ones that are.
# On 6.12, upstream's /proc/allocinfo prints bytes signed and calls
# unsigned: a negative count of calls reads as 2^64 less a little, 20
# digits, where no real count has even 19.
negative_sites() {
	if [ "$K612" ]; then
		awk 'NR > 2 && ($1 < 0 || length($2) >= 19) { $1 = $2 = ""; print }' \
			/proc/allocinfo | sort
	else
		grep '^negative ' $1 | cut -d' ' -f4- | sort
	fi
}
# kmalloc_stride SIZE: what an object of kmalloc-SIZE is charged, its
# cache's stride: SIZE, or more where KASAN or SLUB's debugging add to
# each object.
kmalloc_stride() { cat /sys/kernel/slab/kmalloc-$1/slab_size; }

no_negative_sites() {
	_s=/sys/kernel/debug/alloc_tags.summary
	if [ -z "$K612" ]; then
		grep -q "^negative_sites [0-9]" $_s ||
			{ echo "# no negative_sites in $_s"; return 1; }
	fi
	negative_sites $_s > /tmp/negative.1
	sleep 1
	negative_sites $_s > /tmp/negative.2
	grep -Fx -f /tmp/negative.1 /tmp/negative.2 > /tmp/negative
	[ -s /tmp/negative ] || return 0
	if [ "$K612" ]; then
		sed 's/^ */#   /' /tmp/negative
	else
		grep -F -f /tmp/negative $_s | sed 's/^/#   /'
	fi
	return 1
}

# time_stats helpers.
# site_block PATTERN: the block of the first site whose header matches.
site_block() {
	awk -v p="$1" '/^[^ ]+:[0-9]+ module:/ { on = ($0 ~ p) && !done; if (on) n++ }
		       on && n == 1 { print; if ($0 == "") done = 1 }' \
		/sys/kernel/debug/time_stats
}
# field BLOCK NAME: the value after "NAME:" in a site block, units kept.
field() { echo "$1" | sed -n "s/^$2: *//p"; }
# to_ns "N unit": nanoseconds.
to_ns() {
	echo "$1" | awk '{ m = ($2 == "s") ? 1e9 : ($2 == "ms") ? 1e6 : ($2 == "us") ? 1e3 : 1; printf "%.0f", $1 * m }'
}

# cmdline_number NAME: N of codetag.NAME=N on the kernel command line, or
# nothing.
cmdline_number() {
	sed -n "s/.*codetag\.$1=\([0-9]*\).*/\1/p" /proc/cmdline
}
