# SPDX-License-Identifier: GPL-2.0
# Sourced last by run.sh: the kernel log must be free of splats (see
# splats.awk; ALLOC_FAILURES_EXPECTED=1 where faults are injected on
# purpose). The host checks the console too, in case the guest never gets
# this far.

dmesg | awk -v allowed="${ALLOC_FAILURES_EXPECTED:-0}" -f /tests/splats.awk > /tmp/splats
what="kernel log free of splats"
# After sweep.sh: the splats its sweeps provoked and reported are allowed,
# line by line, and no other.
if [ -f /tmp/sweep-reports ]; then
	sed 's/^\[ *[0-9.]*\] //' /tmp/splats | grep -vxF -f /tmp/sweep-reports > /tmp/splats.other
	mv /tmp/splats.other /tmp/splats
	what="kernel log free of splats but those the sweeps reported"
fi
echo "# $(dmesg | grep -cE 'page allocation failure: |vmalloc error: ') allocation failure reports"
if [ -s /tmp/splats ]; then
	notok "$what"
	sed 's/^/#   /' /tmp/splats | head -20
else
	ok "$what"
fi
