# SPDX-License-Identifier: GPL-2.0
# Sourced last by run.sh: the kernel log must be free of splats (see
# splats.awk; ALLOC_FAILURES_EXPECTED=1 where faults are injected on
# purpose). The host checks the console too, in case the guest never gets
# this far.

dmesg | awk -v allowed="${ALLOC_FAILURES_EXPECTED:-0}" -f /tests/splats.awk > /tmp/splats
echo "# $(dmesg | grep -cE 'page allocation failure: |vmalloc error: ') allocation failure reports"
if [ -s /tmp/splats ]; then
	notok "kernel log free of splats"
	sed 's/^/#   /' /tmp/splats | head -20
else
	ok "kernel log free of splats"
fi
