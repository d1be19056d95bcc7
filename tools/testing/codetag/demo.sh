#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make demo": build once (quietly, logs in build/logs/), then boot the
# guest and let guest/demo.sh show what codetag does.

set -euo pipefail
HARNESS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HARNESS/../../.." && pwd)
LOGS=$ROOT/build/logs
H=$HARNESS/harness.sh
mkdir -p "$LOGS"

quiet() {
	local log=$LOGS/$1.log
	shift
	if ! "$@" > "$log" 2>&1; then
		echo "failed: $* (log: ${log#$ROOT/})" >&2
		tail -20 "$log" >&2
		exit 1
	fi
}

echo "codetag demo: preparing (the first run builds a kernel: a few minutes)"
quiet deps "$H" deps
quiet tree "$H" tree
quiet kernel-guest "$H" kernel guest
quiet initramfs-guest "$H" initramfs guest
echo "codetag demo: booting the guest (QEMU, TCG, 2 vCPUs)"
# Firmware and boot chatter come before the demo's first line; drop them.
"$H" boot guest demo 2>&1 | tr -d '\r' |
	sed -n '/codetag guest demo/,$p' | sed '1d;/reboot: /d'
