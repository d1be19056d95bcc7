#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make sweep": codetag sweep on real 6.1 code (guest/sweep-real.sh: tmpfs,
# ext4, xfs and btrfs on loop devices, loop set-up, a network namespace made
# and destroyed, stress-ng), in the distro
# debug kernel: Debian's configuration with KASAN, UBSAN and lockdep.
#
#   sweep-real.sh                       every workload
#   SWEEPS=ext4,loop sweep-real.sh      those only
#   SWEEP_FLAVOR=distro sweep-real.sh   on another distro flavour
#
# Each workload's JSON goes to build/sweep/NAME.json, and a summary to
# standard output.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
FLAVOR=${SWEEP_FLAVOR:-distro-debug}

quiet deps "$H" deps
quiet tree "$H" tree
quiet "kernel-$FLAVOR" "$H" kernel "$FLAVOR"
quiet "initramfs-$FLAVOR" "$H" initramfs "$FLAVOR"
echo "codetag sweep: booting $FLAVOR (console: build/logs/sweep-real-$FLAVOR.log)"
CODETAG_APPEND="${SWEEPS:+codetag.sweeps=$SWEEPS}" \
	"$H" boot "$FLAVOR" sweep-real > "$LOGS/sweep-real-$FLAVOR.log" 2>&1 || true
results=$B/sweep-real-$FLAVOR.txt
[ -f "$results" ] || { echo "sweep: no results (console: build/logs/sweep-real-$FLAVOR.log)" >&2; exit 1; }
rm -rf "$B/sweep"
mkdir -p "$B/sweep"
tr -d '\r' < "$results" | sed -n 's/^json \([^ ]*\) /\1 /p' | while read -r name json; do
	echo "$json" > "$B/sweep/$name.json"
done
python3 - "$B/sweep" <<'PY'
import json, os, sys
d = sys.argv[1]
kinds = ["clean", "not reached", "leaked", "splat", "hung", "data error", "not swept"]
# A sweep that could not run (its workload failed alone, say) printed no
# JSON: the results file has its exit status and messages.
results = {}
for f in sorted(os.listdir(d)):
    try:
        results[f] = json.load(open(os.path.join(d, f)))
    except ValueError:
        print("%s: no result (see the sweep's messages in the results file)" % f[:-5])
print("%-14s %7s %7s  %s" % ("workload", "reached", "seconds", "  ".join(k.replace(" ", "-") for k in kinds)))
for f in results:
    r = results[f]
    n = {k: 0 for k in kinds}
    for p in r["points"]:
        n[p["outcome"]] += 1
    print("%-14s %7d %7d  %s" % (f[:-5], r["reached"], r["seconds"],
          "  ".join("%*d" % (len(k), n[k]) for k in kinds)))
for f in results:
    r = results[f]
    for p in r["points"]:
        if p["outcome"] in ("leaked", "splat", "hung", "data error"):
            print("\n%s: %s: %s" % (f[:-5], p["outcome"], p["site"]))
            for k in p["kept"]:
                print("  keeps %d bytes in %d calls: %s" % (k["bytes"], k["calls"], k["site"]))
            if p["report"]:
                print("  | " + "\n  | ".join(p["report"].splitlines()[:8]))
            print("  reproduce: " + p["reproduce"])
PY
