#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Run in its own boot, with sysctl.vm.mem_profiling=never: profiling is
# off for good. The boot log says so in its own words before the sysctl
# code reports that it could not set the read-only sysctl; nothing is
# ever charged, no slab gets a vector of tags, and the sysctl refuses to
# be switched.

. /tests/lib.sh
D=/sys/kernel/debug
A=$D/alloc_tags

ours="alloc_tag: disabled for good (sysctl.vm.mem_profiling=never)"
refusal="Failed to set sysctl parameter 'vm.mem_profiling=never': permission denied (read-only?)"
check "the boot log says profiling is disabled for good" \
	sh -c "dmesg | grep -qF '$ours'"
# Line numbers: ours must come first, as what the refusal means.
ours_at=$(dmesg | grep -nF "$ours" | head -1 | cut -d: -f1)
refusal_at=$(dmesg | grep -nF "$refusal" | head -1 | cut -d: -f1)
check "... before the sysctl code's refusal to set it" \
	sh -c "[ ${ours_at:-0} -gt 0 ] && [ ${ours_at:-0} -lt ${refusal_at:-0} ]"
check_eq "vm.mem_profiling reads 0" "$(cat /proc/sys/vm/mem_profiling)" 0
check_eq "vm.mem_profiling is read-only (0444)" \
	"$(stat -c %a /proc/sys/vm/mem_profiling)" 444
check "writing 1 to it fails" \
	sh -c "! echo 1 > /proc/sys/vm/mem_profiling 2>/dev/null"
check_eq "... and changes nothing" "$(cat /proc/sys/vm/mem_profiling)" 0

# A workload's allocations, then what they left behind.
ls -R /sys > /dev/null 2>&1
dd if=/dev/zero of=/tmp/f bs=64k count=16 2>/dev/null && rm /tmp/f
check "nothing is charged" sh -c "! grep -qv '^0B 0 ' $A"
check_eq "no slab has a vector of tags" \
	"$(awk '$1 == "slab_vector_bytes" { print $2 }' $A.summary)" 0
check_eq "and none was asked for" \
	"$(awk '$1 == "slab_vectors_failed" { print $2 }' $A.summary)" 0
