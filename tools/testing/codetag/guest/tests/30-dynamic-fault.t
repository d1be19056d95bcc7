#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Fault injection seen from a shell: the control file and its format, the
# boot parameter, the three command lines of the documentation, task
# scoping, and an error-path sweep over every allocation site of a test
# module: each one failed once, each failure handled, nothing leaked.
#
# On 6.12 the allocation sites are upstream's, as /proc/allocinfo lists
# them: built-in code is module:vmlinux, and kstrdup() is no allocation
# wrapper, so the fault module's operation has five sites, not six.

. /tests/lib.sh
D=/sys/kernel/debug
F=$D/dynamic_faults
T=$D/codetag_test_fault
M=/modules
SRC=tools/testing/codetag/modules/codetag_test_fault.c
if [ "$K612" ]; then OP_SITES=5; else OP_SITES=6; fi

# Set by the harness on the command line of test boots.
vfs=$(alloc_sites | grep -c '^fs/namespace.c:[0-9]* .* func:alloc_vfsmnt$')
check "the boot parameter armed a point before userspace" \
	sh -c "dmesg | grep -q 'dynamic_fault: dynamic_fault=\"func alloc_vfsmnt probability 0\": $vfs fault points armed'"
check "alloc_vfsmnt's $vfs allocation sites are listed enabled, probability 0" \
	[ "$vfs" -gt 0 -a "$(grep -Ec "^fs/namespace.c:[0-9]+ module:$(builtin namespace) func:alloc_vfsmnt class:memory enabled probability:0 hits:[0-9]+ faults:0\$" $F)" = "$vfs" ]
check "'func alloc_vfsmnt disable' disarms them" \
	sh -c "echo 'func alloc_vfsmnt disable' > $F"
check "no point is armed" sh -c "! grep -q ' enabled ' $F"

check_eq "dynamic_faults is root-only (0600)" "$(stat -c %a $F)" 600
check "every line parses: file:line module:M func:F class:C state hits faults" \
	awk '!/^[^ ]+:[0-9]+ module:[a-z0-9_]+ func:[A-Za-z0-9_.]+ class:[a-z0-9_:]+ (enabled|disabled)( [a-z]+:[^ ]+| verbose)* hits:[0-9]+ faults:[0-9]+$/ { bad = 1; print "# " $0 }
	     END { exit bad }' $F
nmem=$(grep -c ' class:memory ' $F)
alloc_sites > /tmp/alloc_sites
nsites=$(wc -l < /tmp/alloc_sites)
echo "# $nmem memory fault points in the kernel"
# The memory points by site, as alloc_sites() names them: every
# allocation site has one, and the others are memory_fault() calls, which
# only the KUnit suites make in the kernels under test.
awk '/ class:memory / { print $1, $2, $3 }' $F > /tmp/memory_points
check_eq "every allocation call site has a memory point ($nsites sites)" \
	"$(grep -cFxf /tmp/memory_points /tmp/alloc_sites)" "$nsites"
grep -Fvxf /tmp/alloc_sites /tmp/memory_points > /tmp/other_points
sed 's/^/# memory point of no allocation site: /' /tmp/other_points
check "every other memory point is a memory_fault() call of the KUnit suites" \
	sh -c "! grep -v '^lib/codetag/kunit/' /tmp/other_points"
check "the fault point of a real allocation site is listed (fs/dcache.c __d_alloc)" \
	grep -Eq "^fs/dcache.c:[0-9]+ module:$(builtin dcache) func:__d_alloc class:memory disabled hits:0 faults:0\$" $F
tail -n "$nsites" $F | awk '{ print $1, $2, $3 }' > /tmp/last_points
check "the listing ends with the allocation sites, in the kernel's order" \
	cmp -s /tmp/alloc_sites /tmp/last_points

insmod $M/codetag_test_fault.ko
grep "module:codetag_test_fault func:fault_op class:memory " $F > /tmp/sites
n=$(wc -l < /tmp/sites)
check_eq "the module's $OP_SITES allocation sites appear on load" "$n" $OP_SITES
check "they are named by the module's source file" \
	sh -c "! grep -v '^$SRC:' /tmp/sites"
io=$(grep -n ' func:fault_io class:codetag_test:io ' $F | cut -d: -f1)
dcache=$(grep -n ' func:__d_alloc class:memory ' $F | head -1 | cut -d: -f1)
check "the module's dynamic_fault() point comes before the kernel's allocation sites" \
	[ "${io:-0}" -gt 0 -a "${dcache:-0}" -gt "${io:-0}" ]
check "the operation succeeds with no point armed" sh -c "echo 1 > $T/run"

# Malformed commands: -EINVAL, the wrong word logged, nothing changed.
dmesg_mark
check "'class memory frequency' (no number) is refused with EINVAL" \
	sh -c "! echo 'class memory frequency' > $F 2>/tmp/err && grep -q 'Invalid argument' /tmp/err"
check "... and the log names the word" \
	sh -c "dmesg | tail -n +$((DMESG_MARK + 1)) | grep -q \"dynamic_fault: 'frequency' needs a number\""
check "'module codetag_test_fault enable bogus' is refused" \
	sh -c "! echo 'module codetag_test_fault enable bogus' > $F 2>/dev/null"
check "a query that matches nothing is refused (ENOENT)" \
	sh -c "! echo 'module no_such_module class memory enable' > $F 2>/tmp/err && grep -q 'No such file' /tmp/err"
check "nothing was armed" sh -c "! grep -q ' enabled ' $F"

# The second command line of the documentation, on our module: every
# memory point of the module fires once, so the operation fails once per
# site, at each site in turn, then works.
check "'module codetag_test_fault class memory oneshot'" \
	sh -c "echo 'module codetag_test_fault class memory oneshot' > $F"
check "... arms the module's $((OP_SITES + 1)) memory points" \
	[ "$(grep 'module:codetag_test_fault ' $F | grep -c ' enabled times:1/1 ')" = $((OP_SITES + 1)) ]
fails=0
for i in 1 2 3 4 5 6 7 8; do
	echo 1 > $T/run 2>/dev/null || fails=$((fails + 1))
done
check_eq "the operation fails once per site, then works" "$fails" $OP_SITES
check "each of its sites injected exactly one fault and is disarmed" \
	sh -c "[ \$(grep 'module:codetag_test_fault func:fault_op ' $F | grep -c ' disabled hits:1 faults:1\$') = $OP_SITES ]"
echo 'module codetag_test_fault disable' > $F

# The third: one line, every 100th time.
line=$(sed -n 's/^[^:]*:\([0-9]*\) module:codetag_test_fault func:fault_repeat .*/\1/p' $F)
check "'file $SRC line $line frequency 100'" \
	sh -c "echo 'file $SRC line $line frequency 100' > $F"
check_eq "1000 allocations there, exactly 10 fail" "$(cat $T/repeat)" 10
check "the site counts 1000 hits and 10 faults" \
	grep -q "^$SRC:$line module:codetag_test_fault func:fault_repeat class:memory enabled frequency:100 hits:1000 faults:10\$" $F
check "other sites are untouched" \
	sh -c "echo 1 > $T/run"
echo "file $SRC line $line disable" > $F

# times N caps; probability 100 with times 3 fails three runs exactly.
echo "module codetag_test_fault func fault_repeat probability 100 times 3" > $F
check_eq "'probability 100 times 3': three failures" "$(cat $T/repeat)" 3
echo "module codetag_test_fault disable" > $F

# Task scoping: a subshell fails only its own allocations.
check "'pid N': the scoped shell's operation fails" \
	sh -c "echo \"module codetag_test_fault class memory enable pid \$\$\" > $F; ! echo 1 > $T/run"
check "... another task's does not" sh -c "echo 1 > $T/run"
echo "module codetag_test_fault disable" > $F
# A process group: setsid starts a shell in a group of its own, whose
# every child is in it too; the test's own shell is not.
check "'pgid N': a child of the scoped group fails, and the listing names the group" \
	setsid sh -c "echo \"module codetag_test_fault func fault_op class memory enable pgid \$\$\" > $F &&
		      grep -q ' func:fault_op class:memory enabled pgid:'\$\$' hits:0 faults:0\$' $F &&
		      sh -c '! echo 1 > $T/run'"
check "... a task outside the group does not" sh -c "echo 1 > $T/run"
check "... a pgid that names no process group is refused" \
	sh -c "! echo 'module codetag_test_fault enable pgid '\$\$ > $F"
echo "module codetag_test_fault disable" > $F
# A task's comm is the name it was executed by; busybox runs the applet
# named by its first argument when its own name starts with "busybox".
ln -sf /bin/busybox /tmp/busyboxfault
check "'comm NAME': only the task named so fails" \
	sh -c "echo 'module codetag_test_fault class memory enable comm busyboxfault' > $F &&
	       echo 1 > $T/run && ! /tmp/busyboxfault sh -c 'echo 1 > $T/run'"
echo "module codetag_test_fault disable" > $F

# verbose: the fault is logged with its site and a stack.
dmesg_mark
echo "module codetag_test_fault func fault_op class memory oneshot verbose" > $F
echo 1 > $T/run 2>/dev/null
check "'verbose' logs the site of the fault" \
	sh -c "dmesg | tail -n +$((DMESG_MARK + 1)) | grep -q 'dynamic_fault: fault 1 at $SRC:[0-9]* func:fault_op class:memory, hit 1, in sh'"
check "... and the stack through the operation" \
	sh -c "dmesg | tail -n +$((DMESG_MARK + 1)) | grep -q 'run_write+0x'"
echo "module codetag_test_fault disable" > $F
# ... but not an allocation whose caller asked for no warning: a report
# from inside the allocator, under whatever locks it holds, is what
# __GFP_NOWARN keeps out.
insmod $M/codetag_test_nowarn.ko
echo "module codetag_test_nowarn class memory oneshot verbose" > $F
dmesg_mark
check "a verbose point fails an allocation with __GFP_NOWARN" \
	sh -c "! echo 1 > $D/codetag_test_nowarn 2>/dev/null"
check "... and logs nothing of it" \
	sh -c "! dmesg | tail -n +$((DMESG_MARK + 1)) | grep -q 'dynamic_fault: fault'"
check "... though it counted the fault" \
	grep -Eq "/codetag_test_nowarn.c:[0-9]+ module:codetag_test_nowarn func:nowarn_alloc class:memory .* faults:1\$" $F
rmmod codetag_test_nowarn

# A kvmalloc() call is decided once, with its caller's flags: a point
# that failed only its kmalloc attempt would report a fault the caller
# never sees, as the vmalloc fallback then succeeds; and __GFP_NOFAIL,
# which kvmalloc() drops from its kmalloc attempt, is never failed.
insmod $M/codetag_test_kvmalloc.ko
echo "module codetag_test_kvmalloc func kv_alloc oneshot" > $F
check "a kvmalloc() site's point fails the call, not only its kmalloc attempt" \
	sh -c "! echo 1 > $D/codetag_test_kvmalloc 2>/dev/null"
check "... counted once" \
	grep -Eq "module:codetag_test_kvmalloc func:kv_alloc class:memory .* faults:1\$" $F
check "... and the next call succeeds (oneshot)" \
	sh -c "echo 1 > $D/codetag_test_kvmalloc"
echo "module codetag_test_kvmalloc func kv_nofail enable" > $F
check "a kvmalloc() with __GFP_NOFAIL at an enabled point succeeds" \
	sh -c "echo 1 > $D/codetag_test_kvmalloc_nofail"
check "... and no fault is counted" \
	grep -Eq "module:codetag_test_kvmalloc func:kv_nofail class:memory .* faults:0\$" $F
echo "module codetag_test_kvmalloc disable" > $F
rmmod codetag_test_kvmalloc

# A dynamic_fault() point of a class of our own, armed by a prefix of its
# class: it fails the I/O once, and its stack trace unwinds through the
# point's out-of-line path into the function and its callers.
check "a dynamic_fault(\"codetag_test:io\") point is listed, disarmed" \
	grep -Eq "^$SRC:[0-9]+ module:codetag_test_fault func:fault_io class:codetag_test:io disabled hits:0 faults:0\$" $F
check "the I/O succeeds while it is disarmed" sh -c "echo 1 > $T/io"
dmesg_mark
echo "class codetag_test oneshot verbose" > $F
check "'class codetag_test oneshot verbose' fails the I/O with EIO" \
	sh -c "! echo 1 > $T/io 2>/tmp/err && grep -q 'Input/output error' /tmp/err"
check "... once" sh -c "echo 1 > $T/io"
check "... the log names the point" \
	sh -c "dmesg | tail -n +$((DMESG_MARK + 1)) | grep -q 'dynamic_fault: fault 1 at $SRC:[0-9]* func:fault_io class:codetag_test:io, hit 1, in sh'"
check "... and the stack through the point's function to its caller" \
	sh -c "dmesg | tail -n +$((DMESG_MARK + 1)) | grep -A1 ' fault_io[.a-z0-9]*+0x' | grep -q 'io_write+0x'"
check "... it counted the one fault, and is disarmed" \
	grep -Eq "^$SRC:[0-9]+ module:codetag_test_fault func:fault_io class:codetag_test:io disabled hits:[12] faults:1\$" $F
echo "module codetag_test_fault disable" > $F

# The first command line: every allocation site in the kernel. Armed and
# disarmed from kernel code around the operation, so the shell that asks
# still has memory afterwards.
dmesg_mark
check "'class memory enable' from kernel code fails the operation at its first allocation" \
	sh -c "! echo 1 > $T/arm_all 2>/tmp/err && grep -q 'Cannot allocate memory' /tmp/err"
check "... and 'class memory disable' leaves every point disarmed" \
	sh -c "! grep -q ' enabled ' $F"
armed=$(dmesg_since | sed -n 's/.*class memory enable. armed \([0-9]*\) fault points.*/\1/p')
check "... it armed every memory point of the kernel ($armed of $nmem and more)" \
	[ "${armed:-0}" -gt "$nmem" ]
check "the machine still works afterwards" sh -c "ls / > /dev/null && echo 1 > $T/run"

# The error-path sweep: fail each site of the operation once, in turn.
sweep_ok=1
while read -r site rest; do
	before=$(module_calls codetag_test_fault)
	fail_site_once "$site" || sweep_ok=0
	after=$(module_calls codetag_test_fault)
	[ "$before" = "$after" ] || { echo "# $site: $before live allocations before, $after after"; sweep_ok=0; }
done < /tmp/sites
check "error-path sweep: each of the $OP_SITES sites fails once, -ENOMEM, no leak" [ $sweep_ok = 1 ]
check_eq "the module holds no allocation after the sweep" \
	"$(module_calls codetag_test_fault)" 0

check "the module unloads" rmmod codetag_test_fault
check "its fault points go with it" sh -c "! grep -q module:codetag_test_fault $F"

# A module's dynamic_fault= parameter arms its points as it loads, before
# its init function runs: the only way to fail its initialisation.
S=codetag_test_sweep
dmesg_mark
check "insmod $S dynamic_fault=\"func ${S}_init oneshot\" fails the load" \
	sh -c "! insmod $M/$S.ko 'dynamic_fault=\"func ${S}_init oneshot\"' 2>/dev/null"
check "... the log says which points the parameter armed" \
	sh -c "dmesg | tail -n +$((DMESG_MARK + 1)) |
	       grep -q 'dynamic_fault: $S: dynamic_fault=\"func ${S}_init oneshot\": 2 fault points armed'"
check "... and the module is not loaded" [ ! -d /sys/module/$S ]
check_eq "... nor holds an allocation" "$(module_calls $S)" 0
check "a point armed by the parameter stays armed once the module is loaded" \
	sh -c "insmod $M/$S.ko 'dynamic_fault=\"func sweep_op probability 0\"' &&
	       [ \$(grep -c ' module:$S func:sweep_op class:memory enabled probability:0 ' $F) = 5 ]"
rmmod $S
dmesg_mark
check "a malformed parameter: the module loads all the same" \
	insmod $M/$S.ko 'dynamic_fault="func sweep_op bogus"'
check "... the log names the word, and nothing is armed" \
	sh -c "dmesg | tail -n +$((DMESG_MARK + 1)) | grep -q \"dynamic_fault: unknown action 'bogus'\" &&
	       dmesg | tail -n +$((DMESG_MARK + 1)) | grep -q 'dynamic_fault: $S: dynamic_fault=\"func sweep_op bogus\": error -22, nothing armed' &&
	       ! grep -q ' module:$S .* enabled ' $F"
rmmod $S
dmesg_mark
check "a parameter naming a module is refused: it arms the loading module's points only" \
	sh -c "insmod $M/$S.ko 'dynamic_fault=\"module codetag_test_fault oneshot\"' &&
	       dmesg | tail -n +$((DMESG_MARK + 1)) | grep -q \"'module' given for module $S\" &&
	       ! grep -q ' enabled ' $F"
rmmod $S
# Objects of vmlinux have names of their own too: mm/shmem.c's tags are
# "shmem" on 6.1, as a module shmem.ko would be. The parameter of a
# module of that name arms its own point, none of mm/shmem.c's.
dmesg_mark
check "insmod shmem.ko dynamic_fault=\"class memory probability 0\" loads" \
	insmod $M/shmem.ko 'dynamic_fault="class memory probability 0"'
check "... the log says it armed one fault point, the module's own" \
	sh -c "dmesg | tail -n +$((DMESG_MARK + 1)) |
	       grep -q 'dynamic_fault: shmem: dynamic_fault=\"class memory probability 0\": 1 fault points armed'"
check "... it is armed" \
	grep -q '^tools/testing/codetag/modules/codetag_test_modname.c:[0-9]* module:shmem .* enabled probability:0 ' $F
check_eq "... and no point of mm/shmem.c is" \
	"$(grep -c '^mm/shmem.c:[0-9]* .* enabled ' $F)" 0
rmmod shmem
