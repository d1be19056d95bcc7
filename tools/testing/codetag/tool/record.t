#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Records the files of data/guest/ in a guest (see data/README).
. /tests/lib.sh
D=/sys/kernel/debug
M=/modules
R=/tmp/rec
mkdir -p $R
dump() { echo "=== $1" >> $RESULTS; cat "$2" >> $RESULTS; echo "=== end" >> $RESULTS; }
run() { name=$1; shift; echo "=== cmd $name: $*" >> $RESULTS; "$@" > /tmp/run.out 2>&1; cat /tmp/run.out >> $RESULTS; echo "=== end" >> $RESULTS; }

insmod $M/codetag_test_fault.ko
echo 'file codetag_test_fault.c line 127 frequency 100' > $D/dynamic_faults
cat $D/codetag_test_fault/repeat > /dev/null
insmod $M/codetag_test_wait.ko
echo 20 > $D/codetag_test_wait
mkdir -p /tmp/mnt
mount -t tmpfs -o size=12x none /tmp/mnt 2>/dev/null
dump dynamic_faults $D/dynamic_faults
dump time_stats $D/time_stats
dump error_codes $D/error_codes
run faults codetag faults
run latency codetag latency -n 8
run errors codetag errors
run fault-bad codetag fault 'module codetag_test_fault frequency'
echo 'file codetag_test_fault.c line 127 disable' > $D/dynamic_faults

insmod $M/codetag_test_holder.ko
insmod $M/codetag_test_leak.ko
run top codetag top -n 10
codetag snapshot $R/before
echo 512 > $D/codetag_test_leak
codetag snapshot $R/after
dump before $R/before
dump after $R/after
run diff codetag diff -n 8 $R/before $R/after
touch $R/leaking
( while [ -f $R/leaking ]; do echo 16 > $D/codetag_test_leak; sleep 0.5; done ) &
( sleep 20; rm $R/leaking ) &
codetag watch -i 1 -c 30 -o $R/watch.csv
wait
dump watch.csv $R/watch.csv
run leaks codetag leaks -n 8 $R/watch.csv
rmmod codetag_test_leak
dump allocinfo /proc/allocinfo
dump alloc_tags $D/alloc_tags
ok "recorded"
