#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The control plane under concurrency, for codetag.torture= seconds (90
# by default; the distro flavour leaves it to the soak, which runs it
# on the same configuration after the stress mix): test modules
# load and unload, with and without live
# allocations and with a failing init, while every application's commands
# arm, disarm and switch their sites in those modules and in vmlinux,
# vm.mem_profiling goes off and on, every file is read in odd sizes, and
# a workload allocates. A command that lands while a module loads or
# unloads must neither change a static key the kernel cannot patch nor
# leave a key that disagrees with its code: the next change of that key
# would then stop the kernel ("jump_label: Fatal kernel bug, unexpected
# op"). Afterwards everything is disabled, and the checks are that no
# point is armed, no fault fires, no allocation site is watched, no
# counter is negative, and switching keys on and off again still works.
#
# Every guest runs QEMU's TCG with one thread for all vCPUs (harness.sh,
# cmd_boot): with a thread per vCPU, a vCPU can run a stale translation
# of code another vCPU is patching and die on an int3 the kernel has
# already taken out, whoever's static key it is (6.1's own, in
# /sys/kernel/debug/sched/features, too). That is the emulator's fault,
# not the kernel's; with one thread the two vCPUs still interleave.
#
# On 6.12, what its series has: dynamic_faults, alloc_tags.ctx and
# time_stats, a module whose init is failed by its dynamic_fault=
# parameter, and the leak freed before its module unloads (upstream warns
# at the unload of live allocations, and keeps them).

. /tests/lib.sh
D=/sys/kernel/debug
F=$D/dynamic_faults
C=$D/alloc_tags.ctx
S=$D/time_stats
M=/modules
SECONDS_ALL=$(cmdline_number torture)
case $FLAVOR in
distro)	SECONDS_ALL=${SECONDS_ALL:-0} ;;
*)	SECONDS_ALL=${SECONDS_ALL:-90} ;;
esac
if [ "$SECONDS_ALL" -eq 0 ]; then
	echo "# the control plane's torture runs in the distro soak, not here"
	exit 0
fi
END=$(($(date +%s) + SECONDS_ALL))
W=/tmp/torture
rm -rf $W
mkdir -p $W

running() { [ "$(date +%s)" -lt $END ]; }

# The other module with fault points: on 6.12, the init of
# codetag_test_load; on 6.1, the leak's allocation sites.
if [ "$K612" ]; then
	OTHER=codetag_test_load
	LOOPS="modules_loop kept_loop faults_loop ctx_loop stats_loop profiling_loop readers_loop workload_loop"
else
	OTHER=codetag_test_leak
	LOOPS="modules_loop kept_loop faults_loop ctx_loop stats_loop profiling_loop readers_loop workload_loop"
fi

# count NAME: one more of NAME done in the window.
count() { echo x >> $W/$1; }

# try NAME COMMAND...: COMMAND, counted as NAME if it succeeded. Commands
# may fail: a module they name may be between loads.
try() {
	_n=$1
	shift
	"$@" 2>/dev/null && count "$_n"
}

# A task that only sleeps: fault points scoped to it are armed, their
# keys switched, and nothing ever fails.
sleep 100000 &
SLEEPER=$!

# The test modules come and go: the fault module, whose operation runs
# while it is loaded; the leak, unloaded with live allocations that the
# holder frees later; a module whose init fails after its tags went live;
# the wait module, timed by time_stats.
insmod $M/codetag_test_holder.ko
modules_loop() {
	while running; do
		try fault_load insmod $M/codetag_test_fault.ko
		try fault_run sh -c "echo 1 > $D/codetag_test_fault/run"
		try fault_unload rmmod codetag_test_fault
		[ "$K612" ] || continue
		insmod $M/codetag_test_load.ko \
			'dynamic_fault="class codetag_test:load oneshot"' 2>/dev/null ||
			count param_failed_init
		try load_load insmod $M/codetag_test_load.ko
		try load_unload rmmod codetag_test_load
	done
}
kept_loop() {
	while running; do
		try leak_load insmod $M/codetag_test_leak.ko
		try leak_alloc sh -c "echo 2 > $D/codetag_test_leak"
		if [ "$K612" ]; then
			try held_free sh -c "echo 1 > $D/codetag_test_holder"
			try leak_unload rmmod codetag_test_leak
		else
			try leak_unload rmmod codetag_test_leak
			try held_free sh -c "echo 1 > $D/codetag_test_holder"
			insmod $M/codetag_test_tags.ko fail_init=1 2>/dev/null
			count failed_init
		fi
		try wait_load insmod $M/codetag_test_wait.ko
		try wait_run sh -c "echo 1 > $D/codetag_test_wait"
		try wait_unload rmmod codetag_test_wait
	done
}

# Every action of dynamic_faults, on the modules and on vmlinux; memory
# points of vmlinux only scoped to the sleeper.
faults_loop() {
	while running; do
		for a in "enable" "oneshot" "times 3" "frequency 2" \
			 "probability 50" "enable comm torture-none" \
			 "enable pid $SLEEPER verbose"; do
			try fault_cmd sh -c "echo 'module codetag_test_fault class memory $a' > $F"
			try fault_cmd sh -c "echo 'module codetag_test_fault disable' > $F"
			try fault_cmd sh -c "echo 'module $OTHER $a' > $F"
			try fault_cmd sh -c "echo 'module $OTHER disable' > $F"
		done
		try fault_cmd sh -c "echo 'file fs/*.c class memory enable pid $SLEEPER' > $F"
		try fault_cmd sh -c "echo 'file fs/*.c disable' > $F"
		try fault_cmd sh -c "echo 'module codetag_test_* class memory oneshot; module codetag_test_* disable' > $F"
	done
}
ctx_loop() {
	while running; do
		for m in codetag_test_fault codetag_test_leak codetag_test_wait; do
			try ctx_cmd sh -c "echo 'module $m enable' > $C"
			try ctx_cmd sh -c "echo 'module $m disable' > $C"
		done
		try ctx_cmd sh -c "echo 'file mm/util.c enable' > $C"
		try ctx_cmd sh -c "echo 'file mm/util.c disable' > $C"
	done
}
stats_loop() {
	while running; do
		for a in disable enable reset; do
			try stats_cmd sh -c "echo 'module codetag_test_wait $a' > $S"
			try stats_cmd sh -c "echo '$a' > $S"
		done
	done
}
profiling_loop() {
	while running; do
		try profiling_off sh -c "echo 0 > /proc/sys/vm/mem_profiling"
		sleep 1
		try profiling_on sh -c "echo 1 > /proc/sys/vm/mem_profiling"
		sleep 1
	done
}
readers_loop() {
	while running; do
		for f in $D/alloc_tags /proc/allocinfo $F $C $S \
			 $D/alloc_tags.summary $D/error_codes $D/codetag/types; do
			[ -e "$f" ] || continue
			for bs in 7 61 4096; do
				try read dd if="$f" of=/dev/null bs=$bs
			done
		done
	done
}
workload_loop() {
	while running; do
		try workload sh -c "find / -xdev > $W/find.out; cat /proc/[0-9]*/status > /dev/null; sort $W/find.out | md5sum > /dev/null"
	done
}

loops=
for l in $LOOPS; do
	$l &
	loops="$loops $!"
done
for p in $loops; do
	wait "$p"
done
echo "# $SECONDS_ALL s of:"
for n in fault_load fault_run fault_unload leak_load leak_unload failed_init \
	 param_failed_init load_load wait_load wait_unload fault_cmd ctx_cmd \
	 stats_cmd profiling_off read workload; do
	echo "#   $n $(cat $W/$n 2>/dev/null | wc -l)"
done
check "modules loaded and unloaded under commands (fault module $(cat $W/fault_unload 2>/dev/null | wc -l) times)" \
	[ "$(cat $W/fault_unload 2>/dev/null | wc -l)" -gt 0 ]
if [ "$K612" ]; then
	check "fault, ctx and time_stats commands were applied ($(cat $W/fault_cmd $W/ctx_cmd $W/stats_cmd 2>/dev/null | wc -l)), module parameters failed inits ($(cat $W/param_failed_init 2>/dev/null | wc -l))" \
		[ "$(cat $W/fault_cmd 2>/dev/null | wc -l)" -gt 0 ] &&
		[ "$(cat $W/ctx_cmd 2>/dev/null | wc -l)" -gt 0 ] &&
		[ "$(cat $W/stats_cmd 2>/dev/null | wc -l)" -gt 0 ] &&
		[ "$(cat $W/param_failed_init 2>/dev/null | wc -l)" -gt 0 ]
else
	check "fault, ctx and time_stats commands were applied ($(cat $W/fault_cmd $W/ctx_cmd $W/stats_cmd 2>/dev/null | wc -l))" \
		[ "$(cat $W/fault_cmd 2>/dev/null | wc -l)" -gt 0 ] &&
		[ "$(cat $W/ctx_cmd 2>/dev/null | wc -l)" -gt 0 ] &&
		[ "$(cat $W/stats_cmd 2>/dev/null | wc -l)" -gt 0 ]
fi

# Disable everything.
echo 1 > /proc/sys/vm/mem_profiling
check "'disable' disarms every fault point" sh -c "echo disable > $F"
check "'disable' stops every context capture" sh -c "echo disable > $C"
check "'enable' switches every latency site back on" sh -c "echo enable > $S"
echo 1 > $D/codetag_test_holder
rmmod codetag_test_fault codetag_test_leak codetag_test_wait codetag_test_load 2>/dev/null
check "no fault point is left armed" sh -c "! grep -q ' enabled' $F"
if [ -z "$K612" ]; then
	check_eq "no allocation site is left watched" \
		"$(sed -n 's/^watched_sites //p' $D/alloc_tags.summary)" 0
fi
check "no counter is negative" no_negative_sites

# The module's sites agree with their keys: no fault fires, and arming and
# disarming them again (which patches their code) goes through.
insmod $M/codetag_test_fault.ko
ok_runs=0
for i in 1 2 3 4 5 6 7 8 9 10; do
	echo 1 > $D/codetag_test_fault/run 2>/dev/null && ok_runs=$((ok_runs + 1))
done
check_eq "after 'disable', no fault fires (10 runs of the fault module)" "$ok_runs" 10
check "the module's points switch on and off again" \
	sh -c "echo 'module codetag_test_fault class memory enable pid $SLEEPER' > $F &&
	       echo 'module codetag_test_fault disable' > $F"
check "vmlinux points switch on and off again" \
	sh -c "echo 'file fs/*.c class memory enable pid $SLEEPER' > $F &&
	       echo 'file fs/*.c disable' > $F"
rmmod codetag_test_fault codetag_test_holder

# The latency sites' static branch agrees with them: after the writers'
# last 'enable', a wait of the wait module is recorded. Two writers
# whose updates of the branch land in the other order than their
# commands leave it off with every site on.
insmod $M/codetag_test_wait.ko
echo 1 > $D/codetag_test_wait
check_eq "after 'enable', a wait is recorded at its line" \
	"$(field "$(site_block 'module:codetag_test_wait func:wait_10ms$')" count)" 1
rmmod codetag_test_wait
kill $SLEEPER
