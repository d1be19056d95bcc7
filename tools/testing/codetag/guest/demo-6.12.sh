#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# What "KERNEL=6.12 make demo" shows inside the 6.12 guest: upstream's
# allocation profiling read by tools/codetag, and what the 6.12 series
# adds to it.
# Sourced by demo.sh, whose say(), run() and show_*() it uses.

F=$D/dynamic_faults
T=$D/codetag_test_fault

say "Linux $(uname -r): upstream's allocation profiling, read by tools/codetag: the call sites holding the most memory"
run "codetag top -n 5 | head"
say "A leak found: two readings of /proc/allocinfo, and what grew between them"
insmod /modules/codetag_test_holder.ko
insmod /modules/codetag_test_leak.ko
run "codetag snapshot /tmp/before"
run "echo 256 > $D/codetag_test_leak"
run "codetag diff -n 3 /tmp/before"
say "Who calls the growing line? Capture its allocations' contexts"
site=$(sed -n 's/.* \([^ ]*codetag_test_leak.c\):\([0-9]*\) .*func:leak_objects.*/file \1 line \2/p' /proc/allocinfo)
run "echo '$site enable' > $D/alloc_tags.ctx"
run "sh -c 'echo 1 > $D/codetag_test_leak'"
run "cat $D/alloc_tags.ctx"
run "echo '$site disable' > $D/alloc_tags.ctx"
# Upstream warns at the unload of a module with live allocations.
echo 1 > $D/codetag_test_holder
rmmod codetag_test_leak
rmmod codetag_test_holder

say "Fault injection: every allocation site is a fault point, as /proc/allocinfo lists them"
insmod /modules/codetag_test_fault.ko
run "grep 'func:fault_op ' $F"
say "Fail each allocation of an operation in turn: its error path runs"
run "echo 'module codetag_test_fault func fault_op class memory oneshot' > $F"
for i in 1 2 3 4 5 6; do
	run "echo 1 > $T/run && echo 'run $i: ok'"
done
run "grep 'func:fault_op ' $F"
say "... and nothing the failed runs allocated was left behind"
run "grep codetag_test_fault /proc/allocinfo"
say "A module's dynamic_fault() points are fault points too"
run "grep 'class:codetag_test' $F"
say "Arm a class of points to fail once: the module's I/O fails, then works"
run "echo 'class codetag_test oneshot' > $F"
run "echo 1 > $T/io || echo 'the I/O failed'"
run "echo 1 > $T/io && echo 'the I/O worked'"
run "grep class:codetag_test $F"
say "A malformed command changes nothing; the kernel log names the bad word"
run "echo 'class codetag_test frequency' > $F"
run "grep class:codetag_test $F"
rmmod codetag_test_fault

say "A module's initialisation, failed by its dynamic_fault= parameter"
run "insmod /modules/codetag_test_load.ko 'dynamic_fault=\"class codetag_test:load oneshot\"'"
run "dmesg | grep 'codetag_test_load: dynamic_fault=' | tail -1"
run "[ -d /sys/module/codetag_test_load ] || echo 'codetag_test_load is not loaded'"

show_latency

show_errors

