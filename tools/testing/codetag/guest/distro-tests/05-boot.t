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
# harness.sh gives a vCPU that a busy host leaves unscheduled two minutes
# before the watchdog or RCU calls it stuck.
check_eq "the soft lockup and RCU stall limits are the harness's: 60 s threshold, 120 s stall" \
	"$(cat /proc/sys/kernel/watchdog_thresh) $(cat /sys/module/rcupdate/parameters/rcu_cpu_stall_timeout)" \
	"60 120"
n=$(dmesg | grep -c "initcall .* returned ")
# The log must still start at the kernel's first line, or the early
# initcalls' returns may have been overwritten.
check "the kernel log holds every initcall's return ($n, from the first line on)" \
	sh -c "dmesg | head -1 | grep -q 'Linux version' && [ $n -gt 300 ]"
# What fails in any QEMU guest, with or without codetag: no CPU microcode
# to load (-EINVAL), no EFI tables (-ENOENT, -ENOSYS), no Intel P2SB
# bridge (-ENOENT), no hibernation image to resume from (-ENOENT; its
# initcall is software_resume_initcall on 6.12).
BENIGN="save_microcode_in_initrd -22|microcode_init -22|efi_mokvar_sysfs_init -2|esrt_sysfs_init -38|p2sb_fs_init -2|software_resume -2|software_resume_initcall -2"
dmesg | sed -n 's/.*initcall \([^+ ]*\)[^ ]* returned \(-[0-9]*\) .*/\1 \2/p' |
	grep -v ' -19$' | grep -vxE "$BENIGN" > /tmp/initcalls.failed
check "no initcall failed but for -ENODEV and QEMU's missing devices ($(wc -l < /tmp/initcalls.failed) did)" \
	[ ! -s /tmp/initcalls.failed ]
sed 's/^/#   /' /tmp/initcalls.failed
