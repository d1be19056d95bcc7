#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make demo": build once (quietly, logs in build/logs/), then boot the
# guest and let guest/demo.sh show what codetag does. KERNEL=6.12 shows
# the 6.12 series (guest/demo-6.12.sh).

set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

echo "codetag demo: preparing (the first run builds a kernel: a few minutes)"
quiet deps "$H" deps
quiet tree "$H" tree
quiet kernel-guest "$H" kernel guest
quiet initramfs-guest "$H" initramfs guest
echo "codetag demo: booting the guest (QEMU, TCG, 2 vCPUs)"
# Firmware and boot chatter come before the demo's first line; drop them.
"$H" boot guest demo 2>&1 | tr -d '\r' |
	sed -n '/codetag guest demo/,$p' | sed '1d;/reboot: /d'
# A second, short boot: the guest's root is an empty RAM disk that ext4
# refuses, and the kernel's last words before its panic say which check.
printf '\n\033[1m== %s\033[0m\n' "The root mount says which check refused it"
echo "# the guest booted again, root=/dev/ram0 rootfstype=ext4, an empty RAM disk:"
CODETAG_APPEND="rdinit=/none root=/dev/ram0 rootfstype=ext4" \
	"$H" boot guest rootfail 2>&1 | tr -d '\r' |
	sed -n 's/^\[ *[0-9.]*\] //; /No filesystem could mount root\|refused the root\|Unable to mount root/p'
