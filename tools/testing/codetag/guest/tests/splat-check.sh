# SPDX-License-Identifier: GPL-2.0
# Sourced last by run.sh: the kernel log must be free of splats. The host
# checks the console too, in case the guest never gets this far.

SPLATS='BUG:|WARNING:|KASAN|UBSAN|possible circular locking|possible recursive locking|inconsistent lock state|suspicious RCU usage|DEBUG_LOCKS_WARN_ON|sleeping function called from invalid context|general protection fault|Oops|Kernel panic|Call Trace'
if dmesg | grep -E "$SPLATS" > /tmp/splats; then
	notok "kernel log free of splats"
	sed 's/^/#   /' /tmp/splats | head -20
else
	ok "kernel log free of splats"
fi
