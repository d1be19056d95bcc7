#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs every /tests/*.t in order, or the scripts given as arguments. Each
# prints "ok - ..." / "not ok - ..." lines through lib.sh; they go to
# $RESULTS (ttyS1, or what the init set), which the host reads, and to
# the console for people watching.

export RESULTS=${RESULTS:-/dev/ttyS1}
stty -F $RESULTS raw -echo 2>/dev/null
. /tests/lib.sh

echo "codetag guest: running integration tests on $(uname -r), $(nproc) CPUs"
# Every time the tests measure comes from this clock: with jiffies (no
# TSC, HPET or ACPI PM timer), each is a multiple of a tick.
cs=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)
case $cs in
tsc|tsc-early|hpet|acpi_pm|arch_sys_counter) ok "the clocksource is fine-grained: $cs" ;;
*) notok "the clocksource is fine-grained: $cs (available: $(cat /sys/devices/system/clocksource/clocksource0/available_clocksource))" ;;
esac
[ $# -gt 0 ] || set -- /tests/*.t
for t in "$@"; do
	echo "# $t"
	sh "$t"
	rc=$?
	[ $rc -eq 0 ] || notok "$(basename "$t") exited with status $rc"
done
. /tests/splat-check.sh
echo "codetag guest: done"
