#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The codetag tool on the host, from the command line, on recorded files:
#
#   run.sh CODETAG TREE WORKDIR
#
# CODETAG is the tool built from TREE's tools/codetag; the kernel's files
# are read from a root made in WORKDIR with CODETAG_ROOT. One "ok" or
# "not ok" line per check.

set -u
CODETAG=$1
TREE=$2
W=$3
DATA=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/data
# The recorded files by relative names: check names stay the same in
# every clone.
cd "$DATA" || exit 1
G=guest
LEAK='tools/testing/codetag/modules/codetag_test_leak.c:28 \[codetag_test_leak\] func:leak_pages'
failed=0

ok() { echo "ok - $*"; }
notok() { echo "not ok - $*"; failed=1; }
check() {
	local desc=$1
	shift
	if "$@" > /dev/null 2>&1; then ok "$desc"; else notok "$desc"; fi
}

rm -rf "$W"
mkdir -p "$W/root/proc" "$W/root/sys/kernel/debug" "$W/root/dev"
R=$W/root
cp "$G/allocinfo" "$R/proc/allocinfo"
cp "$G/alloc_tags" "$G/dynamic_faults" "$G/time_stats" "$G/error_codes" \
	"$R/sys/kernel/debug/"
: > "$R/dev/kmsg"
export CODETAG_ROOT=$R

# ---- top ---------------------------------------------------------------
"$CODETAG" top -n 5 > "$W/top" 2>&1
check "top, in a pipe, runs once and lists five sites" \
	[ "$(grep -c ' func:' "$W/top")" = 5 ]
check "... without escape codes" \
	bash -c "! grep -q $'\033' '$W/top'"
# The five largest by a reading of allocinfo of its own: bytes summed per
# site text, as the tool does for sites that print alike.
awk 'NR > 2 { $1 = $1; b = $1; $1 = ""; $2 = ""; sub(/^  /, ""); s[$0] += b }
     END { for (k in s) print s[k], k }' "$R/proc/allocinfo" |
	sort -k1,1nr -k2 | head -5 | cut -d' ' -f2- > "$W/top.want"
sed -n '3,7p' "$W/top" | sed 's/^ *[^ ]* *[^ ]* *[^ ]* *[^ ]*  //; s/ \[unloaded\]$//' > "$W/top.got"
check "... the five largest sites of allocinfo, largest first" \
	cmp "$W/top.want" "$W/top.got"
"$CODETAG" top -n 5 -m codetag_test_leak > "$W/top-m"
check "top -m MODULE lists only that module's sites, marked unloaded" \
	bash -c "[ \$(grep -c ' func:' '$W/top-m') = 2 ] && [ \$(grep -c '\[codetag_test_leak\] func:leak_.* \[unloaded\]\$' '$W/top-m') = 2 ]"
"$CODETAG" top -n 0 -f 'slub.c' > "$W/top-f"
check "top -f FILE lists only that file's sites" \
	bash -c "grep -q ' func:' '$W/top-f' && ! grep ' func:' '$W/top-f' | grep -v '^.* mm/slub.c:[0-9]* '"
"$CODETAG" top -s calls -n 3 --json > "$W/top.json"
check "top -s calls --json: valid JSON, by calls" \
	python3 -c "
import json, sys
d = json.load(open('$W/top.json'))
c = [s['calls'] for s in d['sites']]
sys.exit(not (len(c) == 3 and c == sorted(c, reverse=True)))"
# Refreshed: the change since the start and per second. The file grows
# by 1 MiB at one site once the first screen is out; top's interval is
# long enough for that to happen before its second reading.
"$CODETAG" top -s delta -n 3 -c 2 -i 5 > "$W/top2" 2>&1 &
top_pid=$!
for _ in $(seq 100); do
	grep -q '^$' "$W/top2" 2> /dev/null && break
	sleep 0.1
done
cp "$R/proc/allocinfo" "$W/allocinfo.orig"
awk '/func:leak_pages$/ { $1 += 1048576; $2 += 256 } { print }' \
	"$W/allocinfo.orig" > "$R/proc/allocinfo"
wait $top_pid
check "top -s delta: the site that grew comes first, +1.0MiB since the start" \
	bash -c "awk 'f && / func:/ { print; exit } /^$/ { f = 1 }' '$W/top2' |
		 grep -q '^ *5.5MiB .* +1.0MiB *+[0-9.]*[KM]iB  .*func:leak_pages \[unloaded\]\$'"
cp "$W/allocinfo.orig" "$R/proc/allocinfo"
script -qec "'$CODETAG' top -n 3 -c 2 -i 0.1" /dev/null > "$W/top-tty" 2>&1
check "top in a terminal clears the screen for each refresh" \
	[ "$(grep -o $'\033\\[H\033\\[2J' "$W/top-tty" | wc -l)" = 2 ]
"$CODETAG" top -s sideways > /dev/null 2> "$W/err"
check "top -s with an unknown key is refused, naming the choices" \
	grep -q "bytes, calls, delta or rate" "$W/err"

# ---- snapshot, diff -------------------------------------------------------
"$CODETAG" snapshot "$W/snap"
"$CODETAG" diff --json -n 0 "$W/snap" "$R/proc/allocinfo" > "$W/same.json"
check "a snapshot of allocinfo reads back with allocinfo's figures" \
	python3 -c "
import json, sys
d = json.load(open('$W/same.json'))
sys.exit(any(s['change'] or s['old_calls'] != s['new_calls'] or s['new'] or s['gone']
             for s in d['sites']))"
check "... and carries the unloaded marks of alloc_tags" \
	grep -q "$LEAK \[unloaded\]\$" "$W/snap"
"$CODETAG" diff "$G/before" "$G/after" > "$W/diff"
check "diff of the recorded snapshots names the leaking line first" \
	bash -c "sed -n 3p '$W/diff' | grep -q '^ *+2.0MiB .* $LEAK\$'"
"$CODETAG" diff "$G/before" "$G/after" --json > "$W/diff.json"
check "diff --json: valid JSON, the same first site and change" \
	python3 -c "
import json, sys
d = json.load(open('$W/diff.json'))
s = d['sites'][0]
sys.exit(not (s['site'].endswith('func:leak_pages') and s['change'] == 2097152))"
"$CODETAG" diff malformed/allocinfo-calls "$G/after" > /dev/null 2> "$W/err"
rc=$?
check "a malformed snapshot is refused, its file and line named" \
	bash -c "[ $rc = 1 ] && grep -q '^codetag: malformed/allocinfo-calls:4: expected' '$W/err'"
"$CODETAG" diff allocinfo-6.12 allocinfo-6.12 > "$W/diff-up"
check "upstream Linux's allocinfo is read too" \
	grep -q "^0 sites changed" "$W/diff-up"
mkdir -p "$W/up/proc"
cp upstream-6.12/allocinfo "$W/up/proc/"
CODETAG_ROOT=$W/up "$CODETAG" top -n 0 -m codetag_bench > "$W/top-up"
# Its distinct sites, lines of one site text summed.
want=$(awk '$4 == "[codetag_bench]" { print $3, $5 }' upstream-6.12/allocinfo |
       sort -u | wc -l)
check "top on upstream 6.12's recorded allocinfo: the module's $want sites" \
	[ "$(grep -c ' \[codetag_bench\] func:bench_[a-z_]*$' "$W/top-up")" = "$want" ]
# Version 2.0 (upstream's, and this series'): a line may end with
# key:value pairs; "accurate:no" marks a site whose counters miss
# allocations, and is kept through snapshots and shown by top and diff.
mkdir -p "$W/v2/proc"
{
	echo "allocinfo - version: 2.0"
	echo "#     <size>  <calls> <tag info>"
	echo "       8192        2 mm/slub.c:100 func:kept accurate:no"
	echo "       4096        1 mm/slub.c:200 func:fine"
	echo "      12288        3 lib/x.c:7 [mod] func:other accurate:no future:key"
} > "$W/v2/proc/allocinfo"
CODETAG_ROOT=$W/v2 "$CODETAG" top -n 0 > "$W/top-v2"
check "2.0: top marks the two sites whose counters are not accurate" \
	bash -c "[ \$(grep -c ' accurate:no\$' '$W/top-v2') = 2 ] &&
		 grep -q ' func:fine\$' '$W/top-v2' &&
		 grep -q ' lib/x.c:7 \[mod\] func:other accurate:no\$' '$W/top-v2'"
CODETAG_ROOT=$W/v2 "$CODETAG" top -n 0 --json > "$W/top-v2.json"
check "2.0: top --json says accurate: false for them, true for the other" \
	python3 -c "
import json, sys
d = {s['site']: s['accurate'] for s in json.load(open('$W/top-v2.json'))['sites']}
sys.exit(d != {'mm/slub.c:100 func:kept': False, 'mm/slub.c:200 func:fine': True,
               'lib/x.c:7 [mod] func:other': False})"
CODETAG_ROOT=$W/v2 "$CODETAG" snapshot "$W/snap-v2"
check "2.0: a snapshot is version 2.0 and keeps the marks" \
	bash -c "head -1 '$W/snap-v2' | grep -qx 'allocinfo - version: 2.0' &&
		 [ \$(grep -c ' accurate:no\$' '$W/snap-v2') = 2 ]"
"$CODETAG" diff -n 0 "$G/before" "$W/snap-v2" > "$W/diff-v2"
check "2.0: diff from a 1.0 snapshot to a 2.0 one marks the sites" \
	grep -q ' mm/slub.c:100 func:kept accurate:no \[new\]$' "$W/diff-v2"
sed '1s/2\.0/3.0/' "$W/v2/proc/allocinfo" > "$W/v3"
"$CODETAG" diff "$W/v3" "$W/snap-v2" > /dev/null 2> "$W/err"
rc=$?
check "a version this tool does not know (3.0) is refused, and says which it reads" \
	bash -c "[ $rc = 1 ] && grep -q 'allocinfo version 3.0: this tool reads 1.x and 2.x' '$W/err'"

# ---- leaks, plot ------------------------------------------------------------
"$CODETAG" leaks "$G/watch.csv" > "$W/leaks"
check "leaks ranks the recorded leak first, with a trusted trend" \
	bash -c "sed -n 3p '$W/leaks' | grep -q ' $LEAK\$' && ! sed -n 1,3p '$W/leaks' | grep -q 'not a trend'"
"$CODETAG" leaks -k 1000 "$G/watch.csv" > "$W/leaks-k"
check "leaks -k: a recording shorter than the steps asked for is too short" \
	grep -q "too short to trust any trend: it needs at least 1001 readings" "$W/leaks-k"
# watch -e: a reading after each run of a command, however long it takes.
# Here the command is the leak: 4 KiB more on one line at each run.
cat > "$W/leak.awk" <<'AWK'
/codetag_test_leak.c:28 / { printf "%12d %8d %s %s %s\n", $1 + 4096, $2 + 1, $3, $4, $5; next }
{ print }
AWK
leak_once="awk -f $W/leak.awk $R/proc/allocinfo > $W/allocinfo.new && mv $W/allocinfo.new $R/proc/allocinfo"
"$CODETAG" watch -e "$leak_once" -c 10 -o "$W/watch-e.csv" 2> "$W/err"
"$CODETAG" leaks "$W/watch-e.csv" > "$W/leaks-e"
check "watch -e: the line the command leaks on grew at each of 9 readings" \
	bash -c "sed -n 3p '$W/leaks-e' | grep -q '^ *9 *9 .* $LEAK\$'"
check "... by 4 KiB a run, 36 KiB in all" \
	bash -c "sed -n 3p '$W/leaks-e' | grep -q ' +36KiB .* $LEAK\$'"
cp "$G/allocinfo" "$R/proc/allocinfo"
"$CODETAG" watch -e "exit 3" -c 5 -o "$W/watch-f.csv" 2> "$W/err"
rc=$?
check "watch -e: a failing command stops the recording with status 1, and says so" \
	bash -c "[ $rc = 1 ] && grep -q \"'exit 3' exited with status 3: the recording stops\" '$W/err'"
check "... keeping the reading taken before it" \
	[ "$(grep -c '"(all sites)"$' "$W/watch-f.csv")" = 1 ]
"$CODETAG" watch -e true -i 1 -c 2 -o "$W/watch-x.csv" 2> /dev/null
check "watch: -e and -i together are a usage error" [ $? = 2 ]
"$CODETAG" watch -e 'echo run' -c 3 -o - > "$W/watch-o.csv" 2> "$W/err"
check "watch -e -o -: the command's output goes to standard error, not into the CSV" \
	bash -c "[ \$(grep -c '^run\$' '$W/err') = 2 ] && ! grep -q '^run' '$W/watch-o.csv' &&
		 [ \$(grep -c '\"(all sites)\"\$' '$W/watch-o.csv') = 3 ]"
"$CODETAG" leaks malformed/watch-backwards.csv > /dev/null 2> "$W/err"
check "a malformed recording is refused, its line named" \
	grep -q "watch-backwards.csv:3: time" "$W/err"
export CODETAG_PYTHON=/usr/bin/python3
"$CODETAG" plot "$G/watch.csv" -o "$W/growth.svg" 2> "$W/err"
check "plot draws the recorded growth as SVG" \
	python3 -c "
import sys, xml.etree.ElementTree as ET
root = ET.parse('$W/growth.svg').getroot()
text = open('$W/growth.svg').read()
sys.exit(not (root.tag.endswith('svg') and 'leak_pages()' in text and 'leak_objects()' in text))"
# The documentation's diff and leaks are of these recordings: what it
# shows must be what the tool prints.
doc_sample() {
	awk -v cmd="    # codetag $1" '$0 == cmd { f = 1; next }
		f && !/^    / { exit } f { print substr($0, 5) }' \
		"$TREE/Documentation/codetag/tools.rst" > "$2"
}
doc_sample "diff -n 8 /tmp/before /tmp/after" "$W/diff8.doc"
"$CODETAG" diff -n 8 "$G/before" "$G/after" > "$W/diff8"
check "tools.rst's diff is what diff prints of the recordings" \
	bash -c "[ -s '$W/diff8' ] && cmp '$W/diff8.doc' '$W/diff8'"
doc_sample "leaks -n 8 /tmp/watch.csv" "$W/leaks8.doc"
"$CODETAG" leaks -n 8 "$G/watch.csv" > "$W/leaks8"
check "tools.rst's leaks is what leaks prints of the recording" \
	bash -c "[ -s '$W/leaks8' ] && cmp '$W/leaks8.doc' '$W/leaks8'"
CODETAG_PYTHON=/nonexistent "$CODETAG" plot "$G/watch.csv" -o "$W/x.svg" 2> "$W/err"
check "plot without python says what it needs" \
	grep -q "python3 and matplotlib" "$W/err"

# ---- faults, latency, errors, fault -------------------------------------------
"$CODETAG" faults > "$W/faults"
check "faults lists the armed point first, with its hits and faults" \
	bash -c "sed -n 3p '$W/faults' | grep -q '^enabled frequency:100 *1000 *10  memory .*func:fault_repeat\$'"
check "... and only the points armed or hit" \
	[ "$(sed 1,2d "$W/faults" | wc -l)" = "$(awk '/ enabled / || !/hits:0 faults:0$/' "$G/dynamic_faults" | wc -l)" ]
check "faults -a lists every point" \
	[ "$("$CODETAG" faults -a | sed 1,2d | wc -l)" = "$(wc -l < "$G/dynamic_faults")" ]
"$CODETAG" latency -u ms -n 0 > "$W/latency"
check "latency -u ms: the 10 ms waits in milliseconds" \
	awk '/func:wait_10ms$/ { n++; ok = $1 == 20 && $4 >= 10 && $4 < 100 } END { exit !(n == 1 && ok) }' "$W/latency"
check "... every site, by the 15/16 quantile, largest first" \
	awk -v want="$(grep -c '^count:' "$G/time_stats")" \
	    'NR > 2 { if (NR > 3 && $5 > last) bad = 1; last = $5; n++ } END { exit bad || n != want }' "$W/latency"
"$CODETAG" latency -q 0 > /dev/null 2> "$W/err"
check "latency -q 0 is refused: quantiles are 1 to 15" \
	grep -q "from 1 to 15" "$W/err"
# sweep arms points and runs a workload: on a real kernel (the guests'
# sweep boot); here, what it refuses before it arms anything.
"$CODETAG" sweep > /dev/null 2> "$W/err"
check "sweep without a workload is refused (exit 2)" \
	bash -c "[ $? = 2 ] && grep -q 'no workload' '$W/err'"
"$CODETAG" sweep --nth 0 -- true > /dev/null 2> "$W/err"
check "sweep --nth 0 is refused: from 1" \
	bash -c "[ $? = 2 ] && grep -q -e \"--nth '0': a number from 1\" '$W/err'"
"$CODETAG" sweep -m codetag_test_fault -- false > /dev/null 2> "$W/err"
check "sweep of a workload that fails on its own: exit 1, nothing armed" \
	bash -c "[ $? = 1 ] && grep -q 'fails without any fault injected (status 1)' '$W/err' &&
		 cmp -s '$G/dynamic_faults' '$R/sys/kernel/debug/dynamic_faults'"
"$CODETAG" errors -a > "$W/errors"
check "errors -a lists every site, by the times returned" \
	awk -v want="$(wc -l < "$G/error_codes")" \
	    'NR > 2 { if (NR > 3 && $1 > last) bad = 1; last = $1; n++ } END { exit bad || n != want }' "$W/errors"
for c in top faults latency errors "leaks $G/watch.csv" \
	 "diff $G/before $G/after"; do
	# shellcheck disable=SC2086
	"$CODETAG" $c --json > "$W/j" 2>&1
	check "'codetag $c --json' is valid JSON" python3 -m json.tool "$W/j"
done
cp "$R/sys/kernel/debug/dynamic_faults" "$W/faults.before"
: > "$R/sys/kernel/debug/dynamic_faults"
"$CODETAG" fault 'file fs/dcache.c oneshot' > "$W/out"
check "fault writes its command to dynamic_faults" \
	bash -c "[ \"\$(cat '$R/sys/kernel/debug/dynamic_faults')\" = 'file fs/dcache.c oneshot' ]"
cp "$W/faults.before" "$R/sys/kernel/debug/dynamic_faults"

# ---- nothing but "fault" writes; missing files and permissions ---------------
if command -v strace > /dev/null; then
	for c in "top -n 3" faults latency errors "snapshot -" \
		 "diff $G/before"; do
		# shellcheck disable=SC2086
		strace -f -e trace=openat -o "$W/strace" "$CODETAG" $c > /dev/null 2>&1
		# It read something of the kernel's, and wrote nothing there.
		check "'codetag $c' opens the kernel's files read-only" \
			bash -c "grep -q '\"$R/' '$W/strace' &&
				 ! grep -E '\"$R/(proc|sys|dev)/[^\"]*\", [^)]*O_(WRONLY|RDWR)' '$W/strace'"
	done
	strace -f -e trace=openat -o "$W/strace" "$CODETAG" leaks "$G/watch.csv" > /dev/null 2>&1
	check "'codetag leaks' reads its recording and nothing of the kernel's" \
		bash -c "grep -q '\"$G/watch.csv\", O_RDONLY' '$W/strace' && ! grep -q '\"$R/' '$W/strace'"
else
	notok "strace is missing: harness.sh deps installs it"
fi
CODETAG_ROOT=$W/none "$CODETAG" top > /dev/null 2> "$W/err"
check "without /proc/allocinfo, top says which option provides it" \
	grep -q "allocinfo: not there: it needs CONFIG_MEM_ALLOC_PROFILING" "$W/err"
CODETAG_ROOT=$W/none "$CODETAG" latency > /dev/null 2> "$W/err"
check "without time_stats, latency names CONFIG_CODETAG_TIME_STATS and debugfs" \
	grep -q "time_stats: not there: it needs CONFIG_CODETAG_TIME_STATS and debugfs" "$W/err"
chmod 0400 "$R/proc/allocinfo"
chmod 0755 "$W" "$R" "$R/proc"
setpriv --reuid=65534 --regid=65534 --clear-groups "$CODETAG" top > /dev/null 2> "$W/err"
check "as a user, top says to run it as root" \
	grep -q "Permission denied: run codetag as root" "$W/err"
"$CODETAG" frobnicate > /dev/null 2> "$W/err"
rc=$?
check "an unknown command is refused with the usage" \
	bash -c "[ $rc = 2 ] && grep -q 'unknown command' '$W/err' && grep -q '^usage:' '$W/err'"
exit $failed
