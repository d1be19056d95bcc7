#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Latency statistics seen from a shell: the file and its format, a wait of
# known length (10 ms) with quantiles near it, real kernel wait sites of
# the busybox workload, reset, enable and disable. The same on 6.12, where
# built-in code is module:vmlinux.

. /tests/lib.sh
D=/sys/kernel/debug
S=$D/time_stats
M=/modules
SRC=tools/testing/codetag/modules/codetag_test_wait.c

check_eq "time_stats is root-only (0600)" "$(stat -c %a $S)" 600

# Some waits of the busybox workload: pipes, children.
for i in 1 2 3 4 5; do echo x | cat > /dev/null; sh -c 'sleep 0.01'; done
check "every site block parses: header, count, rate, frequency, avg, min, max, stddev, quantiles" \
	awk 'BEGIN { want = "count rate frequency avg min max stddev quantiles" }
	     /^[^ ]+:[0-9]+ module:[a-z0-9_]+ func:[A-Za-z0-9_.]+( \[disabled\])?$/ { n = split(want, w, " "); i = 1; next }
	     /^$/ { if (i != 9) { bad = 1; print "# short block" } i = 0; next }
	     {
		ok = 0
		if (w[i] == "count") ok = /^count: +[0-9]+$/
		else if (w[i] == "rate") ok = /^rate: +[0-9]+\/sec$/
		else if (w[i] == "quantiles") ok = /^quantiles \((ns|us|ms|s)\):( [0-9]+){15}$/
		else if (w[i] == "avg") ok = /^avg duration: +[0-9]+ (ns|us|ms|s)$/
		else if (w[i] == "min") ok = /^min duration: +[0-9]+ (ns|us|ms|s)$/
		else if (w[i] == "max") ok = /^max duration: +[0-9]+ (ns|us|ms|s)$/
		else ok = $0 ~ ("^" w[i] ": +[0-9]+ (ns|us|ms|s)$")
		if (!ok) { bad = 1; print "# " $0 }
		i++
	     }
	     END { exit bad }' $S
echo "# sites that have recorded: $(grep -c ' module:' $S)"
pipe=$(site_block "^fs/pipe.c:[0-9]+ module:$(builtin pipe) func:pipe_read")
echo "$pipe" | sed 's/^/#   /'
check "pipe reads are timed at fs/pipe.c, func pipe_read" [ -n "$pipe" ]
check "... with a count and a max no shorter than the mean" \
	[ "$(field "$pipe" count)" -gt 0 -a "$(to_ns "$(field "$pipe" 'max duration')")" -ge "$(to_ns "$(field "$pipe" 'avg duration')")" ]
wait4=$(site_block "^kernel/exit.c:[0-9]+ module:$(builtin exit) func:do_wait")
echo "$wait4" | sed 's/^/#   /'
check "wait4 is timed at kernel/exit.c, func do_wait" [ "$(field "$wait4" count)" -gt 0 ]
# sleep 0.01 in a child: the parent's wait4 lasts at least 10 ms.
check "... and its longest wait covers a 10 ms sleep" \
	[ "$(to_ns "$(field "$wait4" 'max duration')")" -ge 10000000 ]

insmod $M/codetag_test_wait.ko
echo 20 > $D/codetag_test_wait
w=$(site_block "^$SRC:[0-9]+ module:codetag_test_wait func:wait_10ms\$")
echo "$w" | sed 's/^/#   /'
check_eq "the module's wait_event() line recorded 20 waits" "$(field "$w" count)" 20
q=$(echo "$w" | sed -n 's/^quantiles (\(.*\)):/\1/p')
unit=${q%% *}
med=$(echo "$q" | awk '{ print $9 }')
med_ns=$(to_ns "$med $unit")
# Lower bounds only: how late a wake-up comes depends on the host (the
# clock boot checks the figures against waits of known length).
check "its median is at least 10 ms ($med $unit)" [ "$med_ns" -ge 10000000 ]
check "its minimum is at least 10 ms" [ "$(to_ns "$(field "$w" 'min duration')")" -ge 10000000 ]
t=$(site_block "^$SRC:[0-9]+ module:codetag_test_wait func:wait_write\$")
check "time_stats_end() timed the 20 waits once: at least 200 ms" \
	[ "$(field "$t" count)" = 1 -a "$(to_ns "$(field "$t" 'max duration')")" -ge 200000000 ]

# Code written with the 2022 RFC's names builds and is timed at its lines:
# three pairs of names, one 1 ms sleep each.
insmod $M/codetag_test_seed_api.ko
SEED_SRC=tools/testing/codetag/modules/codetag_test_seed_api.c
n=$(grep -cE "^$SEED_SRC:[0-9]+ module:codetag_test_seed_api func:codetag_test_seed_api_init\$" $S)
check_eq "the RFC's code_tag_time_stats_start()/_end()/_finish() and codetag_time_stats_start()/_finish() time three lines" "$n" 3
for l in $(grep -oE "^$SEED_SRC:[0-9]+" $S); do
	b=$(site_block "^$l module:codetag_test_seed_api ")
	check "... $l: one duration of at least 1 ms" \
		[ "$(field "$b" count)" = 1 -a "$(to_ns "$(field "$b" 'max duration')")" -ge 1000000 ]
done
rmmod codetag_test_seed_api

# A wait that ends without finish_wait() records nothing, and the task's
# next wait starts its own clock: after a wait_event_interruptible() that
# a signal interrupted, or a prepare_to_wait() ended by remove_wait_queue(),
# 1 s of sleep, then one 10 ms wait.
for how in signal remove; do
	echo 'module codetag_test_wait reset' > $S
	# The module sends its writer a SIGUSR1, which a handler must take.
	if sh -c "trap : USR1; echo $how > $D/codetag_test_wait_abandoned"; then
		w=$(site_block "^$SRC:[0-9]+ module:codetag_test_wait func:wait_10ms\$")
		max=$(field "$w" 'max duration')
		check "after a wait abandoned by '$how', the next wait is recorded once, shorter than the 1 s between them ($max)" \
			[ "$(field "$w" count)" = 1 -a "$(to_ns "$max")" -lt 1000000000 ]
	else
		notok "the module abandons a wait by '$how'"
	fi
done

check "'module codetag_test_wait reset' clears its sites" \
	sh -c "echo 'module codetag_test_wait reset' > $S && ! grep -q module:codetag_test_wait $S"
check "'module codetag_test_wait disable'" sh -c "echo 'module codetag_test_wait disable' > $S"
echo 3 > $D/codetag_test_wait
check "... then its waits are not recorded" sh -c "! grep -q module:codetag_test_wait $S"
echo 'module codetag_test_wait enable' > $S
echo 3 > $D/codetag_test_wait
check_eq "'enable' records again" "$(field "$(site_block "func:wait_10ms\$")" count)" 3
dmesg_mark
check "'module codetag_test_wait bogus' is refused" \
	sh -c "! echo 'module codetag_test_wait bogus' > $S 2>/dev/null"
check "... naming the word" sh -c "dmesg | tail -n +$((DMESG_MARK + 1)) | grep -q \"time_stats: unknown action 'bogus'\""
check "the module unloads, its sites with it" \
	sh -c "rmmod codetag_test_wait && ! grep -q module:codetag_test_wait $S"

# A module loaded while every site is disabled brings its own sites, which
# start enabled: its waits are recorded, so the static branch that every
# site tests goes on with them.
echo disable > $S
insmod $M/codetag_test_wait.ko
echo 3 > $D/codetag_test_wait
check_eq "a module loaded while every site is disabled records its waits" \
	"$(field "$(site_block 'module:codetag_test_wait func:wait_10ms$')" count)" 3
rmmod codetag_test_wait
echo enable > $S
