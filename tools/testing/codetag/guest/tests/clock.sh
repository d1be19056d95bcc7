#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run in its own boot, under qemu -icount shift=0,sleep=off: guest time
# counts instructions, so a busy wait of N ns lasts N ns of guest time
# whatever the host is doing. Mixes of busy waits of known lengths are
# timed at one site; every quantile, the minimum, the maximum and the mean
# time_stats reports must be within 5% of the true figures of the mix.

. /tests/lib.sh
D=/sys/kernel/debug
S=$D/time_stats
SITE='module:codetag_test_busy func:busy_wait$'

# within5 WHAT GOT_NS TRUE_NS
within5() {
	if awk -v g="$2" -v t="$3" 'BEGIN { d = g - t; if (d < 0) d = -d; exit !(d <= t * 0.05) }'; then
		ok "$1 within 5% ($2 ns, true $3 ns)"
	else
		notok "$1 within 5% ($2 ns, true $3 ns)"
	fi
}

# check_mix NAME "COUNT NS ...": time the mix, compare with its true figures.
check_mix() {
	name=$1
	mix=$2
	echo "module codetag_test_busy reset" > $S 2>/dev/null
	echo "$mix" > $D/codetag_test_busy
	b=$(site_block "$SITE")
	echo "$b" | sed 's/^/#   /'
	# The true durations, one a line, sorted.
	echo "$mix" | awk '{ for (i = 1; i < NF; i += 2) for (j = 0; j < $i; j++) print $(i + 1) }' |
		sort -n > /tmp/true
	n=$(wc -l < /tmp/true)
	check_eq "$name: count" "$(field "$b" count)" "$n"
	within5 "$name: min duration" "$(to_ns "$(field "$b" 'min duration')")" "$(head -1 /tmp/true)"
	within5 "$name: max duration" "$(to_ns "$(field "$b" 'max duration')")" "$(tail -1 /tmp/true)"
	within5 "$name: avg duration" "$(to_ns "$(field "$b" 'avg duration')")" \
		"$(awk '{ s += $1 } END { printf "%.0f", s / NR }' /tmp/true)"
	q=$(echo "$b" | sed -n 's/^quantiles (\(.*\)):/\1/p')
	unit=${q%% *}
	set -- ${q#* }
	k=1
	for v in "$@"; do
		# The quantile k/16 is the duration of rank ceil(n * k / 16).
		rank=$(( (n * k + 15) / 16 ))
		within5 "$name: quantile $k/16" "$(to_ns "$v $unit")" "$(sed -n "${rank}p" /tmp/true)"
		k=$((k + 1))
	done
	check_eq "$name: 15 quantiles" "$((k - 1))" 15
}

cs=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)
echo "# clocksource: $cs; guest time counts instructions (qemu -icount)"
insmod /modules/codetag_test_busy.ko
# Spread over two decades, the most at the shortest.
check_mix "mix 1" "40 20000 24 50000 16 200000 8 1000000 4 3000000"
# Two close modes, 10% apart: the median falls in the second.
check_mix "mix 2" "30 100000 34 110000"
check "a malformed mix is refused" \
	sh -c "! echo '3 1000 7' > $D/codetag_test_busy 2>/dev/null"
rmmod codetag_test_busy
