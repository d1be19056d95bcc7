#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The distro kernel's boot: every initcall succeeded, or found no device
# to drive (-ENODEV, how a driver says "no such hardware here"). harness.sh
# boots distro flavours with initcall_debug, which logs each one's return.
# Splats, caches and sysfs entries that could not be created are found by
# splat-check.sh in every flavour.

. /tests/lib.sh

check "booted with initcall_debug" grep -qw initcall_debug /proc/cmdline
n=$(dmesg | grep -c "initcall .* returned ")
check "the kernel log holds every initcall's return ($n)" [ "$n" -gt 1000 ]
dmesg | sed -n 's/.*initcall \([^ ]*\) returned \(-[0-9]*\) .*/\1 \2/p' |
	grep -v ' -19$' > /tmp/initcalls.failed
check "no initcall failed but for -ENODEV ($(wc -l < /tmp/initcalls.failed) did)" \
	[ ! -s /tmp/initcalls.failed ]
sed 's/^/#   /' /tmp/initcalls.failed
