#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# What "make demo" shows inside the guest. Short and readable: it is the
# first thing a newcomer runs.

D=/sys/kernel/debug
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '# %s\n' "$*"; sh -c ". /etc/profile; $*"; }

echo "codetag guest demo"

# What both series show alike.
show_latency() {
	say "Latency statistics: how long each wait takes, per call site"
	insmod /modules/codetag_test_wait.ko
	run "echo 20 > $D/codetag_test_wait"
	run "grep -A8 'func:wait_10ms' $D/time_stats"
	run "grep -A8 'kernel/exit.c:.*func:do_wait' $D/time_stats | head -9"
	run "codetag latency -n 3"
	rmmod codetag_test_wait
}
show_errors() {
	say "Error codes that remember where they were born"
	mkdir -p /tmp/mnt
	run "mount -t tmpfs -o size=12x none /tmp/mnt"
	run "grep func:shmem_parse_one $D/error_codes | sort -t: -k7 -n | tail -2"
	run "codetag errors --trace -- mount -t tmpfs -o mode=9z none /tmp/mnt"
}

# The 6.12 series has less to show so far: its own part.
case $(uname -r) in
6.12.*)	. /demo-6.12.sh; exit ;;
esac

say "codetag on Linux $(uname -r): tag types registered at boot"
run "cat $D/codetag/types"

say "Allocation profiling: the call sites holding the most memory"
run "sort -hr $D/alloc_tags | head -5"

say "A leak grows on one line of a module"
insmod /modules/codetag_test_holder.ko
insmod /modules/codetag_test_leak.ko
run "echo 64 > $D/codetag_test_leak; grep func:leak_ $D/alloc_tags"
run "echo 64 > $D/codetag_test_leak; grep func:leak_ $D/alloc_tags"
run "grep func:leak_ /proc/allocinfo"
say "Who calls the growing line? Capture its allocations' contexts"
line=$(sed -n 's/.*codetag_test_leak.c:\([0-9]*\) .*func:leak_objects.*/\1/p' $D/alloc_tags)
run "echo 'file tools/testing/codetag/modules/codetag_test_leak.c line $line enable' > $D/alloc_tags.ctx"
run "sh -c 'echo 1 > $D/codetag_test_leak'"
run "cat $D/alloc_tags.ctx"
run "echo 'file tools/testing/codetag/modules/codetag_test_leak.c line $line disable' > $D/alloc_tags.ctx"
say "tools/codetag finds it: two snapshots, the line that grew first"
run "codetag snapshot /tmp/before; echo 256 > $D/codetag_test_leak; codetag snapshot /tmp/after"
run "codetag diff -n 3 /tmp/before /tmp/after"
say "Unloaded with live allocations: its tags are kept until they are freed"
run "rmmod codetag_test_leak; dmesg | grep 'unloaded with'"
run "grep func:leak_ $D/alloc_tags"
echo 1 > $D/codetag_test_holder
rmmod codetag_test_holder

say "Fault injection: every allocation site is a fault point"
insmod /modules/codetag_test_fault.ko
F=$D/dynamic_faults
run "grep 'func:fault_op ' $F"
say "Fail each allocation of an operation in turn: its error path runs"
run "echo 'module codetag_test_fault func fault_op class memory oneshot' > $F"
for i in 1 2 3 4 5 6 7; do
	run "echo 1 > $D/codetag_test_fault/run && echo 'run $i: ok'"
done
run "grep 'func:fault_op ' $F"
run "grep module:codetag_test_fault $D/alloc_tags"
say "Every 100th allocation of one line fails"
line=$(sed -n 's/^[^:]*:\([0-9]*\) .*func:fault_repeat .*/\1/p' $F)
run "echo 'file codetag_test_fault.c line $line frequency 100' > $F"
run "cat $D/codetag_test_fault/repeat; grep func:fault_repeat $F"
rmmod codetag_test_fault

show_latency

show_errors

say "A module with code tags comes and goes"
run "insmod /modules/codetag_test_type.ko"
run "insmod /modules/codetag_test_tags.ko"
run "grep '^codetag_test ' $D/codetag/types"
run "cat $D/codetag_test/tags"
say "One control language for every application: select, then act"
run "echo 'file codetag_test_tags.c func site_one hit' > $D/codetag_test/control"
run "grep site_one $D/codetag_test/tags"
say "A malformed command changes nothing; the kernel log names the bad word"
run "echo 'func site_one line 0-x hit' > $D/codetag_test/control"
run "rmmod codetag_test_tags"
run "grep '^codetag_test ' $D/codetag/types"
run "rmmod codetag_test_type"
echo
