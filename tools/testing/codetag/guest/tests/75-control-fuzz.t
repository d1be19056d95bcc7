#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Malformed input on every control file: the two writes that once crashed
# or slipped through (a quote opening inside a word, a NUL byte), a pid
# named in the writer's pid namespace, limits of numbers and offsets, and
# codetag.fuzz= generated writes through the parser and the apply path of
# every application (ctfuzz.c), all scoped to the test modules: each is
# taken whole or refused with nothing changed. By default 100000 on the
# small guest and 10000 on the others, whose configurations the same
# writes meet.
#
# The 6.12 series has the control files of dynamic_faults, alloc_tags.ctx
# and time_stats, not the test tag type's of codetag_test_type.ko: the
# same checks there.

. /tests/lib.sh
D=/sys/kernel/debug
F=$D/dynamic_faults
C=$D/alloc_tags.ctx
S=$D/time_stats
T=$D/codetag_test_fault
M=/modules
WRITES=$(cmdline_number fuzz)
case $FLAVOR in
guest)	WRITES=${WRITES:-100000} ;;
*)	WRITES=${WRITES:-10000} ;;
esac

insmod $M/codetag_test_fault.ko
insmod $M/codetag_test_wait.ko
if [ "$K612" ]; then
	CONTROLS="$F $C $S"
	MODULES="codetag_test_wait codetag_test_fault"
else
	insmod $M/codetag_test_type.ko
	insmod $M/codetag_test_tags.ko
	CONTROLS="$F $C $S $D/codetag_test/control"
	MODULES="codetag_test_tags codetag_test_type codetag_test_wait codetag_test_fault"
fi

# refused FILE TEXT WORD: writing TEXT (echo -e escapes) to FILE fails
# with EINVAL, and the kernel log names WORD.
refused() {
	dmesg_mark
	if echo -ne "$2" > "$1" 2>/tmp/err; then
		echo "# '$2' was taken"
		return 1
	fi
	grep -q "Invalid argument" /tmp/err || { echo "# $(cat /tmp/err)"; return 1; }
	dmesg_since | grep -qF -- "$3" || { echo "# no '$3' in:"; dmesg_since | sed 's/^/#   /'; return 1; }
}
for f in $CONTROLS; do
	check "$(basename $f): a quote opening inside a word is refused, the log says where" \
		refused $f 'file x"y "z enable\n' 'unterminated quote "'
	check "$(basename $f): a quote inside a word is refused, named" \
		refused $f 'module codetag_test_fault file x"y enable\n' "quote inside the word 'x\"y'"
	check "$(basename $f): a write with a NUL byte is refused, at its offset" \
		refused $f 'module codetag_test_fault disable\0 enable\n' 'NUL byte at offset 33'
done
check "nothing was armed by them" sh -c "! grep -q ' enabled' $F"

# Reads at offsets far past the end, up to the largest a file has.
for f in $F $C $S $D/alloc_tags $D/alloc_tags.summary /proc/allocinfo \
	 $D/codetag/types $D/error_codes; do
	[ -e $f ] || continue
	check "$(basename $f): a read at offset 2^63 - 8 KiB returns nothing" \
		sh -c "[ -z \"\$(dd if=$f bs=4096 skip=2251799813685246 count=1 2>/dev/null)\" ]"
done

# The cap on captured contexts, at and past its limit.
X=$D/alloc_tags.ctx_max
if [ -e $X ]; then
	cap=$(cat $X)
	dmesg_mark
	check "alloc_tags.ctx_max: 2^32 + 1 is refused, not cut to 32 bits" \
		sh -c "! echo 4294967297 > $X 2>/dev/null"
	max=$(dmesg_since | sed -n 's/.*alloc_tags.ctx_max: [0-9]* is above \([0-9]*\)$/\1/p' | tail -1)
	check "alloc_tags.ctx_max: its largest value, ${max:-?}, is taken" \
		sh -c "[ -n '$max' ] && echo '$max' > $X && [ \$(cat $X) = '$max' ]"
	check "alloc_tags.ctx_max: one more is refused" \
		sh -c "! echo $((${max:-0} + 1)) > $X 2>/dev/null"
	check "alloc_tags.ctx_max: 2^64 is refused" \
		sh -c "! echo 18446744073709551616 > $X 2>/dev/null"
	echo "$cap" > $X
fi

# "pid N" is N in the writer's pid namespace; the listing shows the pid
# in the reader's. Only where the kernel has pid namespaces (distro).
if [ -e /proc/self/ns/pid ]; then
	unshare -p -f sh -c "echo 'module codetag_test_fault class memory enable pid 1' > $F; echo \$? > /tmp/armed; ! echo 1 > $T/run" 2>/dev/null
	rc=$?
	check_eq "pid 1 of a new pid namespace names its first process, not init" \
		"$(cat /tmp/armed) $rc" "0 0"
	check "and outside it, the operation succeeds" sh -c "echo 1 > $T/run"
	echo "module codetag_test_fault disable" > $F
else
	echo "# no pid namespaces in this kernel: the pid namespace check needs CONFIG_PID_NS"
fi

# Each refused write logs the word it refused: the log keeps them, the
# console (a slow emulated UART) shows none meanwhile.
level=$(cut -f1 /proc/sys/kernel/printk)
dmesg -n 1
seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
if [ "$K612" ]; then
	set -- $F "module codetag_test_fault " \
	       $C "module codetag_test_fault " \
	       $S "module codetag_test_wait "
else
	set -- $F "module codetag_test_fault " \
	       $C "module codetag_test_fault " \
	       $S "module codetag_test_wait " \
	       $D/codetag_test/control "module codetag_test_tags "
fi
ctfuzz "$seed" "$WRITES" "$@" > /tmp/fuzz.out 2>&1
rc=$?
dmesg -n "$level"
sed 's/^/#   /' /tmp/fuzz.out
check "$WRITES generated writes: each taken whole, or refused with E2BIG, EINVAL or ENOENT and nothing changed (seed $seed)" \
	[ $rc -eq 0 ]

# Whatever the writes armed, switched on or captured goes.
echo "module codetag_test_fault disable" > $F
echo "module codetag_test_wait enable" > $S
echo "module codetag_test_fault disable" > $C
check "no fault point is left armed" sh -c "! grep -q ' enabled' $F"
check "the test module's operation succeeds" sh -c "echo 1 > $T/run"
rmmod $MODULES
