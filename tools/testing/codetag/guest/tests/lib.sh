# SPDX-License-Identifier: GPL-2.0
# Helpers for the guest test scripts: one "ok"/"not ok" line per check.

RESULTS=${RESULTS:-/dev/ttyS1}

. /etc/profile

report() {
	echo "$*"
	echo "$*" >> "$RESULTS"
}

ok() { report "ok - $*"; }
notok() { report "not ok - $*"; }

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
		echo "#   got:  '$2'"
		echo "#   want: '$3'"
	fi
}

# The line of /sys/kernel/debug/codetag/types for type $1.
type_line() {
	grep "^$1 " /sys/kernel/debug/codetag/types || grep "^$1\$" /sys/kernel/debug/codetag/types
}

# meminfo FIELD: value in kB.
meminfo() {
	awk -v f="$1:" '$1 == f { print $2 }' /proc/meminfo
}

# A message logged since mark (dmesg line count taken by dmesg_mark).
dmesg_mark() { DMESG_MARK=$(dmesg | wc -l); }
dmesg_since() { dmesg | tail -n +$((DMESG_MARK + 1)); }
