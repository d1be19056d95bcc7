#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# dynamic_fault() points in a module, as the 6.1 and the 6.12 series both
# have them: listed as they load, armed by class, scoped to a task,
# refused when malformed with nothing changed, and through the module's
# lifetime: an armed point's module unloaded and loaded again, modules
# coming and going while a writer arms and disarms their points, and a
# module's points armed by its dynamic_fault= parameter as it loads.

. /tests/lib.sh
F=/sys/kernel/debug/dynamic_faults
T=/sys/kernel/debug/codetag_test_fault
KO=/modules/codetag_test_fault.ko
SRC=tools/testing/codetag/modules/codetag_test_fault.c
IO="^$SRC:[0-9]+ module:codetag_test_fault func:fault_io class:codetag_test:io"

check_eq "dynamic_faults is root-only (0600)" "$(stat -c %a $F)" 600
insmod $KO
check "the module's dynamic_fault(\"codetag_test:io\") point is listed as it loads, disarmed" \
	grep -Eq "$IO disabled hits:0 faults:0\$" $F
check "the I/O succeeds while the point is disarmed" sh -c "echo 1 > $T/io"

echo "class codetag_test oneshot" > $F
check "'class codetag_test oneshot' fails the I/O with EIO" \
	sh -c "! echo 1 > $T/io 2>/tmp/err && grep -q 'Input/output error' /tmp/err"
check "... once" sh -c "echo 1 > $T/io"
# A spent point no longer counts hits, even before its key is off.
check "... it counted the one fault, and is disarmed" \
	grep -Eq "$IO disabled hits:1 faults:1\$" $F

# Malformed or unmatched: refused, logged, nothing changed.
cp $F /tmp/before
dmesg_mark
check "'class codetag_test frequency' (no number) is refused with EINVAL" \
	sh -c "! echo 'class codetag_test frequency' > $F 2>/tmp/err && grep -q 'Invalid argument' /tmp/err"
check "... and the log names the word" \
	sh -c "dmesg | tail -n +$((DMESG_MARK + 1)) | grep -q \"dynamic_fault: 'frequency' needs a number\""
check "a write whose second command matches nothing is refused with ENOENT" \
	sh -c "! echo 'class codetag_test enable; func no_such_function enable' > $F 2>/tmp/err && grep -q 'No such file' /tmp/err"
check "... and its first command was not applied" cmp -s /tmp/before $F

# Task scoping: this shell's own writes fail, another process's do not.
io_here_fails() { ! { echo 1 > $T/io; } 2>/dev/null; }
echo "class codetag_test enable pid $$" > $F
check "'pid' scoping: another process's I/O succeeds" sh -c "echo 1 > $T/io"
check "... the scoped shell's own fails" io_here_fails
check "... and the listing names the pid" \
	grep -Eq "$IO enabled pid:$$ hits:1 faults:1\$" $F

# An armed point goes with its module; loaded again, it starts disarmed.
check "the module unloads with its point armed" rmmod codetag_test_fault
check "... its point is no longer listed" sh -c "! grep -q ' module:codetag_test_fault ' $F"
insmod $KO
check "loaded again, the point is disarmed and counts from zero" \
	grep -Eq "$IO disabled hits:0 faults:0\$" $F
check "... and the I/O succeeds" sh -c "echo 1 > $T/io"
rmmod codetag_test_fault

# Modules load and unload while a writer arms and disarms their points,
# its dynamic_fault() point and its allocation sites, which match nothing
# while no module is loaded, and the states the arming allocates are freed
# with the module each time. The writer runs until the last unload, and
# the loader keeps the module loaded until the writer has armed it once,
# so that how the two are scheduled decides only where the race falls,
# never whether the loaded module was armed at all.
state_bytes() {
	awk '/ func:(dynamic|memory)_fault_prepare( |$)/ { b += $1 } END { print b + 0 }' /proc/allocinfo
}
before=$(state_bytes)
rm -f /tmp/loads-done
echo 0 > /tmp/armed
(
	armed=0
	while [ ! -e /tmp/loads-done ]; do
		if echo "module codetag_test_fault class codetag_test enable times 3" > $F 2>/dev/null; then
			armed=$((armed + 1))
			echo $armed > /tmp/armed
		fi
		echo "module codetag_test_fault class memory probability 0" > $F 2>/dev/null
		echo "module codetag_test_fault disable" > $F 2>/dev/null
	done
) &
writer=$!
cycles=0
failed=0
while [ $cycles -lt 100 ]; do
	insmod $KO || failed=$((failed + 1))
	waited=0
	while [ "$(cat /tmp/armed)" = 0 ] && [ $waited -lt 2000 ]; do
		echo 1 > $T/io 2>/dev/null
		waited=$((waited + 1))
	done
	echo 1 > $T/io 2>/dev/null
	rmmod codetag_test_fault || failed=$((failed + 1))
	cycles=$((cycles + 1))
done
touch /tmp/loads-done
wait $writer
check_eq "100 loads and unloads beside an arming writer all succeed" "$failed" 0
armed=$(cat /tmp/armed)
echo "# the writer armed the point $armed times in 100 loads"
check "the writer armed the loaded module's point at times" [ "$armed" -gt 0 ]
check "no point of the module is left listed" \
	sh -c "! grep -q ' module:codetag_test_fault ' $F"
check_eq "the states the writer's arming allocated went with the module" \
	"$(state_bytes)" "$before"
insmod $KO
check "loaded once more, its point is disarmed" grep -Eq "$IO disabled hits:0 faults:0\$" $F
check "... and works" sh -c "echo 1 > $T/io"
rmmod codetag_test_fault

# A module's dynamic_fault= parameter arms its points after its tags are
# loaded and before its init function runs: the only way to fail its
# initialisation. On 6.12 the module loader parses the parameter before
# the tags are loaded, and the commands wait for them.
L=codetag_test_load
LKO=/modules/$L.ko
INIT=" module:$L func:${L}_init class:codetag_test:load"
dmesg_mark
check "insmod $L dynamic_fault=\"class codetag_test:load oneshot\" fails the load" \
	sh -c "! insmod $LKO 'dynamic_fault=\"class codetag_test:load oneshot\"' 2>/dev/null"
check "... the log says the parameter armed the module's point" \
	sh -c "dmesg | tail -n +$((DMESG_MARK + 1)) | grep -q 'dynamic_fault: $L: dynamic_fault=\"class codetag_test:load oneshot\": 1 fault points armed'"
check "... and the module is not loaded" [ ! -d /sys/module/$L ]
check "... nor its point listed" sh -c "! grep -q ' module:$L ' $F"
check "without the parameter, the module loads" insmod $LKO
check "... its point disarmed" grep -Eq "$INIT disabled hits:0 faults:0\$" $F
rmmod $L
check "a point armed by the parameter stays armed once the module is loaded" \
	sh -c "insmod $LKO 'dynamic_fault=\"class codetag_test:load probability 0\"' &&
	       grep -Eq '$INIT enabled probability:0 hits:1 faults:0\$' $F"
rmmod $L
dmesg_mark
check "a malformed parameter: the module loads all the same" \
	insmod $LKO 'dynamic_fault="class codetag_test:load bogus"'
check "... the log names the word" \
	sh -c "dmesg | tail -n +$((DMESG_MARK + 1)) | grep -q \"dynamic_fault: unknown action 'bogus'\""
check "... and that nothing was armed" \
	sh -c "dmesg | tail -n +$((DMESG_MARK + 1)) | grep -q 'dynamic_fault: $L: dynamic_fault=\"class codetag_test:load bogus\": error -22, nothing armed' &&
	       ! grep -q ' module:$L .* enabled ' $F"
rmmod $L
dmesg_mark
check "a parameter naming a module is refused: it arms the loading module's points only" \
	sh -c "insmod $LKO 'dynamic_fault=\"module codetag_test_fault enable\"' &&
	       dmesg | tail -n +$((DMESG_MARK + 1)) | grep -q \"'module' given for module $L\" &&
	       ! grep -Eq ' module:($L|codetag_test_fault) .* enabled ' $F"
rmmod $L
