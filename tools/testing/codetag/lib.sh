# SPDX-License-Identifier: GPL-2.0
#
# Shared by demo.sh and bench.sh: where things are, and quiet(), which runs
# a build step with its output in build/logs/ and shows it only on failure.

HARNESS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HARNESS/../../.." && pwd)
B=$ROOT/build
LOGS=$B/logs
H=$HARNESS/harness.sh
mkdir -p "$LOGS"

# quiet NAME COMMAND...: run COMMAND, output in build/logs/NAME.log.
quiet() {
	local log=$LOGS/$1.log
	shift
	if ! "$@" > "$log" 2>&1; then
		echo "failed: $* (log: ${log#$ROOT/})" >&2
		tail -20 "$log" >&2
		exit 1
	fi
}
