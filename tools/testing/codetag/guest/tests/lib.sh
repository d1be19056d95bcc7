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

# A message logged since mark (dmesg line count taken by dmesg_mark).
dmesg_mark() { DMESG_MARK=$(dmesg | wc -l); }
dmesg_since() { dmesg | tail -n +$((DMESG_MARK + 1)); }
