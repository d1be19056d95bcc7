#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tools/codetag, built statically from the tree, on the kernel it was
# made for: top, a leak found with snapshot and diff and with watch and
# leaks, and the views of the other applications' files, on sites this
# script makes them record (the earlier tests' modules are unloaded).
#
# The 6.12 series has the tool, upstream's /proc/allocinfo, fault points,
# time_stats and ERR() codes, but no allocation contexts yet: there, the
# tool is tried on what is. And upstream 6.12 lists no site of an
# unloaded module: a module unloaded with live allocations draws a
# warning and keeps its memory for good, so the leaks are freed first.

. /tests/lib.sh
D=/sys/kernel/debug
M=/modules
T=/tmp/codetag-tool
LEAK_SRC=tools/testing/codetag/modules/codetag_test_leak.c
mkdir -p $T

# An unloaded module's kept tags go a few seconds after its last
# allocation is freed; the later tests load codetag_test_leak afresh and
# read its lines.
leak_tags_released() {
	i=0
	while grep -q '\[codetag_test_leak\]' /proc/allocinfo && [ $i -lt 30 ]; do
		sleep 1
		i=$((i + 1))
	done
	! grep -q '\[codetag_test_leak\]' /proc/allocinfo
}

check "codetag is installed" command -v codetag

# ---- top ---------------------------------------------------------------
codetag top -n 5 > $T/top 2> $T/err
rc=$?
sed 's/^/#   /' $T/top
check_eq "'codetag top -n 5' runs once in a pipe and succeeds" "$rc" 0
check_eq "... it lists five sites" "$(grep -c ' func:' $T/top)" 5
check "... without escape codes in a pipe" \
	sh -c "! grep -q \"\$(printf '\\033')\" $T/top"
codetag top -n 5 --json > $T/top.json
# "bytes": figures of the five sites, in the order listed.
sed 's/"bytes": \([0-9]*\)/\n@\1\n/g' $T/top.json | sed -n 's/^@//p' > $T/bytes
check "'top --json' lists five sites, largest first" \
	sh -c "[ \$(wc -l < $T/bytes) -eq 5 ] && sort -nr $T/bytes | cmp -s - $T/bytes"
first=$(sed -n 's/^[^"]*"sites": \[{"site": "\([^"]*\)".*/\1/p' $T/top.json)
check "... and the first is a site of /proc/allocinfo" \
	grep -qF " $first" /proc/allocinfo

# ---- snapshot and diff --------------------------------------------------
insmod $M/codetag_test_holder.ko
insmod $M/codetag_test_leak.ko
codetag snapshot $T/before
# 4 MiB of pages: more than anything else moves meanwhile, the first
# snapshot's file included (tmpfs pages, charged to shmem: about 1 MiB
# for the 10,000 sites of Debian's configuration).
echo 1024 > $D/codetag_test_leak
codetag snapshot $T/after
codetag diff $T/before $T/after > $T/diff
sed -n 1,6p $T/diff | sed 's/^/#   /'
check "diff names the leaking line first, grown by 4 MiB" \
	sh -c "sed -n 3p $T/diff | grep -q '^ *+4.0MiB .* $LEAK_SRC:[0-9]* \[codetag_test_leak\] func:leak_pages\$'"
check "... and the leaking objects too" \
	grep -q "$LEAK_SRC:[0-9]* \[codetag_test_leak\] func:leak_objects\$" $T/diff
if [ -z "$K612" ]; then
	rmmod codetag_test_leak
	codetag snapshot $T/unloaded
	# Its only change is the mark: listed last, so the whole list.
	check "a site of a module unloaded with its memory live is marked" \
		sh -c "codetag diff -n 0 $T/after $T/unloaded | grep -q 'func:leak_pages \[unloaded\]\$'"
	rmmod codetag_test_holder
	leak_tags_released
	codetag snapshot $T/freed
	check "... and marked gone once its memory is freed" \
		sh -c "codetag diff $T/unloaded $T/freed | grep -q '^ *-4.0MiB .*func:leak_pages \[gone: module unloaded\]\$'"
else
	echo 1 > $D/codetag_test_holder
	codetag snapshot $T/freed
	check "the leak freed, diff shows its line shrunk by 4 MiB" \
		sh -c "codetag diff $T/after $T/freed | grep -q '^ *-4.0MiB .* $LEAK_SRC:[0-9]* \[codetag_test_leak\] func:leak_pages\$'"
	rmmod codetag_test_leak
	rmmod codetag_test_holder
	codetag snapshot $T/unloaded
	check "... and its sites gone once the module is unloaded" \
		sh -c "codetag diff -n 0 $T/freed $T/unloaded | grep -q 'func:leak_pages \[gone: module unloaded\]\$'"
fi
printf 'allocinfo - version: 1.0\n     100 1 mm/slub.c:1 func:x\n  12 oops\n' > $T/bad
codetag diff $T/bad $T/freed > /dev/null 2> $T/err
check "a malformed snapshot is refused, its line named" \
	grep -q "^codetag: $T/bad:3: expected" $T/err

# ---- watch and leaks ----------------------------------------------------
insmod $M/codetag_test_holder.ko
insmod $M/codetag_test_leak.ko
# A reading after each leak of 256 pages and 256 objects: each of the nine
# intervals sees the leak grow, however slowly the guest runs, and faster
# than anything else grows (a KASAN kernel's slab pages grow meanwhile,
# while its quarantine fills).
codetag watch -e "echo 256 > $D/codetag_test_leak" -c 10 -o $T/watch.csv 2> $T/err
check_eq "watch records ten readings" \
	"$(grep -c '"(all sites)"$' $T/watch.csv)" 10
codetag watch -i 0.2 -c 3 -o $T/timed.csv 2> $T/err
check_eq "watch -i records readings at intervals" \
	"$(grep -c '"(all sites)"$' $T/timed.csv)" 3
codetag leaks $T/watch.csv > $T/leaks
sed -n 1,6p $T/leaks | sed 's/^/#   /'
leak_first() {
	sed -n 3p $T/leaks |
		grep -q "^ *9 *9 .* $LEAK_SRC:[0-9]* \[codetag_test_leak\] func:leak_pages\$"
}
# If not, the readings of the leak say why.
leak_first || grep -E 'func:leak_pages"$|"\(all sites\)"$' $T/watch.csv | sed 's/^/#   /'
check "leaks ranks the leaking line first, grown at each of 9 readings" leak_first
check "... and trusts its trend (8 readings that grew are needed)" \
	sh -c "sed -n 1p $T/leaks | grep -q 'trusted after 8 readings' && ! sed -n 1,3p $T/leaks | grep -q 'not a trend yet'"
head -4 $T/watch.csv > $T/short.csv
check "a recording too short to trust is said to be so" \
	sh -c "codetag leaks $T/short.csv | grep -q 'too short to trust any trend: it needs at least 9 readings'"
[ "$K612" ] && echo 1 > $D/codetag_test_holder
rmmod codetag_test_leak
rmmod codetag_test_holder
check "the leak module's sites leave /proc/allocinfo once it is all freed" \
	leak_tags_released

# ---- faults, fault -------------------------------------------------------
# The module's allocation sites in fault_op(): six on 6.1, five on 6.12,
# where kstrdup() is no allocation wrapper (upstream charges what it
# allocates to its own kmalloc in mm/util.c).
FUNC=fault_op
if [ "$K612" ]; then POINTS=5; else POINTS=6; fi
insmod $M/codetag_test_fault.ko
codetag fault "module codetag_test_fault func $FUNC class memory oneshot" > $T/out 2>&1
check "'codetag fault' arms points" grep -q "^codetag: applied: " $T/out
codetag faults > $T/faults
sed -n 1,4p $T/faults | sed 's/^/#   /'
check "faults lists the armed points first" \
	awk 'NR > 2 && /^disabled / { off = 1 } NR > 2 && /^enabled / && off { bad = 1 }
	     END { exit bad || NR < 3 }' $T/faults
check "... the module's, with -m, armed oneshot" \
	sh -c "codetag faults -m codetag_test_fault | sed -n 3p | grep -q '^enabled times:1/1 .*module:codetag_test_fault func:$FUNC\$'"
check "... $POINTS of them, armed" \
	[ "$(grep -c "^enabled times:1/1 .*module:codetag_test_fault func:$FUNC\$" $T/faults)" = $POINTS ]
echo 1 > $D/codetag_test_fault/run 2>/dev/null
check "... and, after a run, the one that failed it with a fault" \
	sh -c "codetag faults -m codetag_test_fault | grep -q '^disabled *1 *1 .*func:$FUNC\$'"
codetag fault 'module codetag_test_fault frequency' > $T/out 2> $T/err
rc=$?
sed 's/^/#   /' $T/err
check "a malformed command fails, and the kernel's message is shown" \
	sh -c "[ $rc -ne 0 ] && grep -q \"'frequency' needs a number\" $T/err"
codetag fault 'module codetag_test_fault disable' > /dev/null
rmmod codetag_test_fault

# ---- latency ---------------------------------------------------------------
insmod $M/codetag_test_wait.ko
echo 5 > $D/codetag_test_wait
codetag latency -m codetag_test_wait > $T/latency
sed 's/^/#   /' $T/latency
# COUNT AVG MIN MEDIAN Q15/16 MAX, in microseconds: 10 ms waits.
check "latency shows the module's 10 ms waits, in microseconds" \
	awk '/func:wait_10ms$/ { n++; ok = $1 == 5 && $4 >= 10000 && $4 < 1000000 }
	     END { exit !(n == 1 && ok) }' $T/latency
codetag latency -n 0 > $T/latency
check "latency lists sites by their 15/16 quantile, largest first" \
	awk 'NR > 2 { if (NR > 3 && $5 > last) bad = 1; last = $5; n++ }
	     END { exit bad || n < 2 }' $T/latency
rmmod codetag_test_wait

# ---- errors ----------------------------------------------------------------
JSON_COMMANDS="faults latency errors"
mkdir -p $T/mnt
mount -t tmpfs -o size=12x none $T/mnt 2>/dev/null
codetag errors -c EINVAL > $T/errors
sed -n 1,5p $T/errors | sed 's/^/#   /'
check "errors lists tmpfs' refused mount option, as an EINVAL" \
	grep -q "^ *[1-9][0-9]* -EINVAL .* mm/shmem.c:[0-9]* module:$(builtin shmem) func:shmem_parse_one\$" $T/errors
check "... sites by the times they returned, most first" \
	awk 'NR > 2 { if (NR > 3 && $1 > last) bad = 1; last = $1 } END { exit bad }' $T/errors

# ---- --json, and nothing changed ------------------------------------------
for c in "top -n 3" "diff $T/before $T/after" "leaks $T/watch.csv" \
	 $JSON_COMMANDS; do
	# shellcheck disable=SC2086
	check "'codetag $c --json' prints one JSON object" \
		sh -c "codetag $c --json > $T/j && [ \$(wc -l < $T/j) = 1 ] && grep -q '^{.*}\$' $T/j"
done
rm -rf $T
