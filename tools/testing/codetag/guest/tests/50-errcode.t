#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Unique error codes seen from a shell: a module's -ERR(EINVAL) reaches
# userspace as EINVAL exactly, from write(2), Linux AIO and io_uring, and
# the kernel log as "-EINVAL at file:line"; error_codes lists the sites; a code outlives its module
# with a sane name; real converted paths (tmpfs mount options, and the
# VFS's and the generic parser's refusals).

. /tests/lib.sh
D=/sys/kernel/debug
E=$D/error_codes
M=/modules
SRC=tools/testing/codetag/modules/codetag_test_errcode.c

check_eq "error_codes is root-only (0400)" "$(stat -c %a $E)" 400
check "every line parses: file:line module:M func:F class:-EXXX code:-N returned:N" \
	awk '!/^[^ ]+:[0-9]+ module:[a-z0-9_]+ func:[A-Za-z0-9_.]+ class:-E[A-Z0-9]+ code:-[0-9]+ returned:[0-9]+$/ { bad = 1; print "# " $0 }
	     END { exit bad }' $E
check "codes are unique across sites" \
	sh -c "[ \$(awk '{ print \$5 }' $E | sort | uniq -d | wc -l) = 0 ]"

insmod $M/codetag_test_errcode.ko
line=$(grep "module:codetag_test_errcode " $E)
echo "# $line"
check "the module's ERR() site appears on load" \
	sh -c "echo '$line' | grep -Eq '^$SRC:[0-9]+ module:codetag_test_errcode func:errcode_op class:-EINVAL code:-[0-9]+ returned:0\$'"
code=$(echo "$line" | sed 's/.* code:\(-[0-9]*\) .*/\1/')
site=$(echo "$line" | cut -d' ' -f1)
check "its code is unique, between 1024 and 4095 ($code)" [ "$code" -le -1024 -a "$code" -ge -4095 ]
dmesg_mark
echo 1 > $D/codetag_test_errcode 2>/tmp/err
echo "# $(cat /tmp/err)"
check "userspace gets errno 22 exactly (Invalid argument)" grep -q 'Invalid argument$' /tmp/err
check "the log carries the file:line: 'error -EINVAL at $site'" \
	sh -c "dmesg_since() { dmesg | tail -n +$((DMESG_MARK + 1)); }; dmesg_since | grep -q 'codetag_test_errcode: operation failed: error -EINVAL at $site\$'"
check "error_codes counts it returned once" grep -q "^$site .* returned:1\$" $E
# Not through a shell's message: the errno that write(2) itself set.
out=$(errno-check 22 write $D/codetag_test_errcode 1)
rc=$?
echo "# errno-check: $out"
check "write(2) sets errno to 22 (EINVAL), not to the unique code" [ $rc = 0 ]
check "error_codes counts that call too: the site returned twice" grep -q "^$site .* returned:2\$" $E
# Results that reach userspace without a system call return: a Linux AIO
# event, and io_uring's completion queue entry, posted inline by the
# submitting task and, with IOSQE_ASYNC, by an io-wq worker. The kernels
# that have both (CONFIG_AIO, CONFIG_IO_URING): the distro kernels, with
# Debian's configuration, and the arm64 guest.
case $FLAVOR in
distro*|arm64)
	n=2
	for how in aio uring uring-async; do
		out=$(errno-check 22 $how /dev/codetag_test_errcode 1)
		rc=$?
		echo "# errno-check: $out"
		check "$how: the completion carries -22 (EINVAL), not the unique code" [ $rc = 0 ]
		n=$((n + 1))
	done
	check "error_codes counts each write: the site returned $n times" \
		grep -q "^$site .* returned:$n\$" $E
	# io_uring puts its requests' files from a worker after the
	# program exits: the module is busy until it has.
	i=0
	while ! rmmod codetag_test_errcode 2>/dev/null && [ $i -lt 50 ]; do
		sleep 0.2
		i=$((i + 1))
	done ;;
*)	echo "# AIO and io_uring: on the distro kernels and arm64"
	rmmod codetag_test_errcode ;;
esac
check "its site goes with the module" sh -c "! grep -q module:codetag_test_errcode $E"
insmod $M/codetag_test_errname.ko
dmesg_mark
printf '%s\n' "$code" > $D/codetag_test_errname
check "after unload, its code still names its class: errname($code) = -EINVAL" \
	sh -c "dmesg | tail -n +$((DMESG_MARK + 1)) | grep -q 'errname($code): -EINVAL\$'"
rmmod codetag_test_errname

# A module loaded and unloaded over and over (codetag sweep --load does)
# gets the same code back for its site each time: no new code, and
# nothing allocated for it that stays. 2,000 times, more than the codes
# left after vmlinux's, on one kernel of each series; 200 on the others.
case $K612$FLAVOR in
guest|1distro) n=2000 ;;
*)	n=200 ;;
esac
errcode_allocs() {
	awk '$3 ~ /^lib\/codetag\/errcode\.c:/ { s += $2 } END { print s + 0 }' \
		/proc/allocinfo
}
allocs0=$(errcode_allocs)
i=0
while [ $i -lt $n ]; do
	insmod $M/codetag_test_errcode.ko && rmmod codetag_test_errcode || break
	i=$((i + 1))
done
check_eq "$n loads and unloads of a module with an ERR() site all succeed" $i $n
allocs1=$(errcode_allocs)
insmod $M/codetag_test_errcode.ko
line=$(grep "module:codetag_test_errcode " $E)
echo "# $line"
check_eq "... and its site has its first code back" \
	"$(echo "$line" | sed 's/.* code:\(-[0-9]*\) .*/\1/')" "$code"
rmmod codetag_test_errcode
check_eq "... and lib/codetag/errcode.c holds as many allocations as before them" \
	"$allocs1" "$allocs0"

# A real path: tmpfs refuses a bad size, and says which check did.
SHMEM=$(builtin shmem)
mkdir -p /tmp/errcode-mnt
dmesg_mark
mount -t tmpfs -o size=12x none /tmp/errcode-mnt 2>/tmp/err
echo "# $(cat /tmp/err)"
msg=$(dmesg | tail -n +$((DMESG_MARK + 1)) | grep "Bad value for 'size'")
echo "# $msg"
check "mount -o size=12x fails with EINVAL for userspace" grep -q 'Invalid argument' /tmp/err
check "the log names the check: error -EINVAL at mm/shmem.c:N" \
	sh -c "echo \"$msg\" | grep -Eq \"tmpfs: Bad value for 'size': error -EINVAL at mm/shmem.c:[0-9]+\\\$\""
check "error_codes shows that mm/shmem.c site returned once" \
	grep -Eq "^mm/shmem.c:[0-9]+ module:$SHMEM func:shmem_parse_one class:-EINVAL code:-[0-9]+ returned:1\$" $E
# Not through a shell's message: the errno that mount(2) itself set.
out=$(errno-check 22 mount tmpfs /tmp/errcode-mnt size=12x)
rc=$?
echo "# errno-check: $out"
check "mount(2) of that sets errno to 22 (EINVAL), not to the unique code" [ $rc = 0 ]
check "error_codes counts that call too: the site returned twice" \
	grep -Eq "^mm/shmem.c:[0-9]+ module:$SHMEM func:shmem_parse_one class:-EINVAL code:-[0-9]+ returned:2\$" $E

# Options the VFS and the generic parser refuse, for every filesystem of
# the new mount API: the log names the check, error_codes counts it.
refused() {	# OPTION: the log line of its refusal since the mark
	dmesg | tail -n +$((DMESG_MARK + 1)) | grep "option '$1' refused"
}
dmesg_mark
mount -t tmpfs -o bogus_option none /tmp/errcode-mnt 2>/dev/null
msg=$(refused bogus_option)
echo "# $msg"
check "an unknown option: 'tmpfs: option ... refused: error -EINVAL at fs/fs_context.c:N'" \
	sh -c "echo \"$msg\" | grep -Eq \"tmpfs: option 'bogus_option' refused: error -EINVAL at fs/fs_context.c:[0-9]+\\\$\""
site=$(echo "$msg" | grep -oE 'fs/fs_context.c:[0-9]+')
check "error_codes counts that site (${site:-none})" \
	grep -Eq "^$site module:[a-z0-9_]+ func:__vfs_parse_fs_param class:-EINVAL code:-[0-9]+ returned:[1-9]" $E
dmesg_mark
mount -t tmpfs -o mode=9z none /tmp/errcode-mnt 2>/dev/null
msg=$(refused mode)
echo "# $msg"
check "a value the generic parser refuses: '... error -EINVAL at fs/fs_parser.c:N'" \
	sh -c "echo \"$msg\" | grep -Eq \"tmpfs: option 'mode' refused: error -EINVAL at fs/fs_parser.c:[0-9]+\\\$\""
pline=$(echo "$msg" | grep -oE 'fs/fs_parser.c:[0-9]+')

# The same from userspace, without the log: the errcode_syscall_exit
# event, through codetag errors --trace. The events are its standard
# output; the command's messages, and its count, go to standard error
# (kept apart: a message written in parts may take an event in between).
out=$(codetag errors --trace -- mount -t tmpfs -o mode=9z none /tmp/errcode-mnt 2>/tmp/trace.err)
{ echo "$out"; cat /tmp/trace.err; } | sed 's/^/#   /'
check "codetag errors --trace: 'mount -> -EINVAL at ${pline:-?}'" \
	sh -c "[ -n '$pline' ] && echo \"$out\" | grep -Eq '^mount -> -EINVAL at $pline  \[mount [0-9]+\]\$'"
check "... and counts one failed system call" \
	grep -q '^codetag: 1 system call failed with an ERR() code$' /tmp/trace.err
out=$(codetag errors --trace --json -- mount -t tmpfs -o bogus_option none /tmp/errcode-mnt 2>/dev/null)
echo "# $out"
check "... --json: syscall, error and site (${site:-?})" \
	sh -c "[ -n '$site' ] && echo '$out' | grep -q '\"syscall\": \"mount\", \"nr\": [0-9]*, \"error\": \"-EINVAL\", \"code\": -[0-9]*, \"site\": \"$site\"'"
# Its exit status is the command's; a command that succeeds prints nothing.
out=$(codetag errors --trace -- true 2>/tmp/trace.err)
rc=$?
check "... a command without failures: exit 0, no event" \
	sh -c "[ $rc = 0 ] && [ -z \"$out\" ] && grep -q '^codetag: 0 system calls' /tmp/trace.err"
out=$(codetag errors --trace -- false 2>&1)
check_eq "... and the command's own exit status" "$?" 1
