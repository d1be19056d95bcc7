#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Allocation contexts seen from a shell: the original presentation's two
# command lines, verbatim, on the page-table site that fork fills; then a
# leak hunt on the test module: a growing line in alloc_tags, its site
# enabled in alloc_tags.ctx, and the leaker's pid, comm and stack read
# back. Also the cap, malformed commands and a module unloaded with
# captured allocations still live.
#
# On 6.12 the sites are upstream's, listed in /proc/allocinfo: the page
# table that fork fills is allocated at the line that calls
# pte_alloc_one() (__pte_alloc() in mm/memory.c), or on x86 in its own
# pte_alloc_one(), and a module unloaded with live allocations is kept by
# upstream (with a warning), so its allocations are freed before it is
# unloaded.

. /tests/lib.sh
D=/sys/kernel/debug
if [ "$K612" ]; then A=/proc/allocinfo; else A=$D/alloc_tags; fi
C=$D/alloc_tags.ctx
X=$D/alloc_tags.ctx_max
M=/modules

check "alloc_tags.ctx and alloc_tags.ctx_max are root-only (0600)" \
	[ "$(stat -c %a $C)$(stat -c %a $X)" = 600600 ]
check_eq "no site is enabled at boot: alloc_tags.ctx is empty" "$(cat $C)" ""

# ctx_blocks FILE: one line per context, "size pid tgid comm ts|stack|...".
# A frame is indented by two blanks; a site's line on 6.12 by more, or it
# starts with its size.
ctx_blocks() {
	awk '/^size: / { if (c) print c; c = $2; next }
	     /^(pid|tgid|comm|ts): / { c = c " " $2; next }
	     /^call stack:$/ { c = c " |"; next }
	     /^  ([^ 0-9]|0x)/ { sub(/^  /, ""); c = c $0 "|"; next }
	     END { if (c) print c }' "$1"
}

# site_text LINE: a site's line without its two counters (bytes, calls),
# which the two listings print alike but for 6.12's padding.
site_text() { echo "$1" | awk '{ $1 = $2 = ""; sub(/^ +/, ""); sub(/ +$/, ""); print }'; }

# The seed's command lines, verbatim (6.1). Forks from "sh -c": the
# child's page tables are copied by the forking shell. The children live
# on (subshells that do not exec), and so do their page tables.
if [ "$K612" ] && [ "$(uname -m)" = x86_64 ]; then
	# x86 has its own pte_alloc_one(), whose __pte_alloc_one() is the site.
	PTE_CMD="func pte_alloc_one enable"
	PTE_SITE='arch/x86/mm/pgtable\.c:[0-9]+ func:pte_alloc_one'
elif [ "$K612" ]; then
	PTE_CMD="func __pte_alloc enable"
	PTE_SITE='mm/memory\.c:[0-9]+ func:__pte_alloc'
else
	PTE_CMD="file include/asm-generic/pgalloc.h line 63 enable"
	PTE_SITE="include/asm-generic/pgalloc.h:63 module:$PTE_MODULE func:__pte_alloc_one"
fi
if echo "$PTE_CMD" > /sys/kernel/debug/alloc_tags.ctx; then
	ok "echo '$PTE_CMD' > alloc_tags.ctx"
else
	notok "echo '$PTE_CMD' > alloc_tags.ctx"
fi
sh -c '(sleep 30; true) & (sleep 30; true) & sleep 1; echo $$ > /tmp/forker; wait' &
sleep 3
cat /sys/kernel/debug/alloc_tags.ctx > /tmp/ctx
head -12 /tmp/ctx
check "its first line is the site, as in $(basename $A): $PTE_SITE" \
	grep -Eqx " *[0-9]+(B|KiB|MiB)? +[0-9]+ $PTE_SITE *" /tmp/ctx
check_eq "... the same line as $(basename $A) has for it" \
	"$(site_text "$(head -1 /tmp/ctx)")" \
	"$(site_text "$(grep -E " $PTE_SITE *\$" $A)")"
ctx_blocks /tmp/ctx > /tmp/ctx.lines
check "every context has size 4096, pid, tgid, comm, ts and a call stack" \
	awk '$1 != 4096 || $2 !~ /^[0-9]+$/ || $3 !~ /^[0-9]+$/ ||
	     $5 !~ /^[0-9]+$/ || $6 !~ /^\|[a-z_].*\+0x[0-9a-f]+\/0x[0-9a-f]+\|/ { bad = 1 }
	     END { exit bad || NR == 0 }' /tmp/ctx.lines
forker=$(cat /tmp/forker)
# For people watching: the forking shell's first context.
awk -v p="$forker" '
	/^size: / { if (keep) exit; blk = $0; next }
	{ blk = blk "\n" $0 }
	/^pid: / { mine = ($2 == p) }
	/copy_page_range/ && mine { keep = 1 }
	END { if (keep) print blk }' /tmp/ctx
check "the forking shell's contexts: comm sh, its pid, a stack through the fork path" \
	awk -v p="$forker" '$2 == p && $3 == p && $4 == "sh" &&
		/\|__pte_alloc\+/ && /\|copy_page_range\+/ &&
		/\|copy_process\+/ { found = 1 } END { exit !found }' /tmp/ctx.lines
# Which function a stack starts in depends on the architecture and the
# compiler's inlining (x86: pte_alloc_one(); arm64: __pte_alloc(),
# __do_fault() and others, or __pte_alloc_one() itself on a debug
# kernel), but never is it one of the profiler's own.
check "no stack starts in the profiler (alloc_tag_*, stack_trace_save*)" \
	awk '$6 ~ /^\|(alloc_tag_|__alloc_tag|stack_trace_save|save_stack)/ {
			bad = 1; print "# a stack starts in the profiler: " substr($6, 1, 120) }
		END { exit bad || NR == 0 }' /tmp/ctx.lines
check "no more contexts than live allocations at the site" \
	[ "$(wc -l < /tmp/ctx.lines)" -le "$(head -1 /tmp/ctx | awk '{ print $2 }')" ]
check "each context lives as long as its allocation: the children's go when they exit" \
	sh -c "kill $forker 2>/dev/null; killall sleep; sleep 1; ! grep -q 'pid: $forker\$' $C"
echo "${PTE_CMD% enable} disable" > $C
check_eq "disable drops the site and all its contexts" "$(cat $C)" ""

# A leak hunt. A line of alloc_tags keeps growing...
insmod $M/codetag_test_holder.ko
insmod $M/codetag_test_leak.ko
if [ "$K612" ]; then
	leak_line() { grep 'codetag_test_leak.c:[0-9]* \[codetag_test_leak\] func:leak_objects' $A; }
else
	leak_line() { grep 'codetag_test_leak.c:[0-9]* module:codetag_test_leak func:leak_objects' $A; }
fi
leak_calls() { leak_line | awk '{ print $2 }'; }
echo 8 > $D/codetag_test_leak
l1=$(leak_line)
echo 8 > $D/codetag_test_leak
l2=$(leak_line)
check_eq "the leaking line grows: 8 then 16 objects" \
	"$(echo $l1 | awk '{ print $2 }') $(echo $l2 | awk '{ print $2 }')" "8 16"
# ... enable its site by file and line, as the listing names it ...
file=$(echo "$l2" | sed -n 's/.* \([^ ]*codetag_test_leak.c\):[0-9]* .*/\1/p')
line=$(echo "$l2" | sed -n 's/.*codetag_test_leak.c:\([0-9]*\) .*/\1/p')
echo "file $file line $line enable" > $C
check "enabling the leaking line by file and line lists it, without contexts yet" \
	sh -c "grep -q 'codetag_test_leak.c:$line .*func:leak_objects' $C &&
	       ! grep -q '^size:' $C"
# ... and the next leaks say who made them.
sh -c 'echo $$ > /tmp/leaker; echo 3 > /sys/kernel/debug/codetag_test_leak'
leaker=$(cat /tmp/leaker)
cat $C > /tmp/ctx
cat /tmp/ctx
ctx_blocks /tmp/ctx > /tmp/ctx.lines
check_eq "one context per new leaked object" "$(wc -l < /tmp/ctx.lines)" 3
stride=$(kmalloc_stride 128)
check "each names the leaker: size $stride, its pid and comm, the write path into the module" \
	awk -v p="$leaker" -v s="$stride" '$1 != s || $2 != p || $3 != p || $4 != "sh" ||
		!/\|leak_objects\+0x[0-9a-f]+\/0x[0-9a-f]+ \[codetag_test_leak\]\|/ ||
		!/\|leak_write\+/ || !/\|vfs_write\+/ { bad = 1 }
		END { exit bad || NR != 3 }' /tmp/ctx.lines
check "timestamps are ns of local_clock, in allocation order" \
	awk '{ if ($5 < last) bad = 1; last = $5 } END { exit bad }' /tmp/ctx.lines
check_eq "the site line still counts every live object" \
	"$(head -1 /tmp/ctx | awk '{ print $2 }')" 19

# The cap: contexts beyond it are counted, and the allocations succeed.
echo 4 > $X
check_eq "alloc_tags.ctx_max takes a new cap" "$(cat $X)" 4
check "... and refuses one above 4096" \
	sh -c "! echo 5000 > $X 2>/dev/null && [ \$(cat $X) = 4 ]"
echo 3 > $D/codetag_test_leak
ctx_blocks $C > /tmp/ctx.lines
check_eq "no more contexts than the cap" "$(wc -l < /tmp/ctx.lines)" 4
check "the allocations beyond it are counted as not captured" \
	grep -qx 'not captured: 2' $C
check_eq "... and were made all the same" "$(leak_calls)" 22
echo 1024 > $X

# Bad input changes nothing.
dmesg_mark
check "a malformed command is refused with EINVAL" \
	sh -c "! echo 'file codetag_test_leak.c enable please' > $C 2>/tmp/err && grep -q 'Invalid argument' /tmp/err"
check "... the log names the wrong word" \
	sh -c "dmesg | tail -n +$((DMESG_MARK + 1)) | grep -q \"'please' after 'enable'\""
check "an unknown action is refused" \
	sh -c "! echo 'file codetag_test_leak.c capture' > $C 2>/dev/null"
check "a query that matches nothing is refused (ENOENT)" \
	sh -c "! echo 'file no_such_file.c enable' > $C 2>/tmp/err && grep -q 'No such file' /tmp/err"
check_eq "... and nothing changed" "$(ctx_blocks $C | wc -l)" 4

# Frees drop exactly their contexts; unloading the module drops its sites.
echo 1 > $D/codetag_test_holder
check "freeing the leaked objects drops their contexts" \
	sh -c "grep -q 'func:leak_objects' $C && ! grep -q '^size:' $C"
echo 2 > $D/codetag_test_leak
check_eq "captured again after the free" "$(ctx_blocks $C | wc -l)" 2
dmesg_mark
if [ "$K612" ]; then
	# Upstream's frees do not discharge while profiling is off: the
	# contexts go when it is switched off, not at a free never seen.
	echo 0 > /proc/sys/vm/mem_profiling
	check_eq "switching vm.mem_profiling off drops the contexts" \
		"$(ctx_blocks $C | wc -l)" 0
	check "... and leaves the site enabled" grep -q 'func:leak_objects' $C
	echo 1 > /proc/sys/vm/mem_profiling
	echo 2 > $D/codetag_test_leak
	check_eq "switched on again, it captures again" "$(ctx_blocks $C | wc -l)" 2
	echo 1 > $D/codetag_test_holder
	check_eq "... and the free drops them" "$(ctx_blocks $C | wc -l)" 0
	rmmod codetag_test_leak
	check "unloading the module drops its enabled site from alloc_tags.ctx" \
		sh -c "! grep -q codetag_test_leak $C"
	insmod $M/codetag_test_leak.ko
	echo 2 > $D/codetag_test_leak
	check "loaded again, its site is not enabled: nothing captured" \
		sh -c "! grep -q codetag_test_leak $C"
	echo 1 > $D/codetag_test_holder
	rmmod codetag_test_leak
else
	rmmod codetag_test_leak
	check "unloading the module drops its sites from alloc_tags.ctx" \
		sh -c "! grep -q codetag_test_leak $C"
	check "its captured allocations are still charged, to the kept site" \
		grep -q "^$((2 * stride))B 2 .*func:leak_objects \[unloaded\]\$" $A
	echo 1 > $D/codetag_test_holder
	check "freeing them later discharges the kept site" \
		grep -q '^0B 0 .*func:leak_objects \[unloaded\]$' $A
fi
rmmod codetag_test_holder
check_eq "nothing is left enabled" "$(cat $C)" ""
