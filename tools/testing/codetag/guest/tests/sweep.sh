#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# codetag sweep, in a boot of its own (the sweeps provoke splats on
# purpose). First tmpfs, a real workload: every fault point of mm/shmem.c
# that a mount, a write and a read, and an unmount reach is failed in turn.
# Then the planted bugs of codetag_test_sweep.ko: one error path leaks, one
# frees twice (KASAN), one returns with a lock held (lockdep), two are
# correct; the sweep must tell each apart. Then the module's own
# initialisation, swept by loading it for each run. tmpfs goes first: the planted
# double free's KASAN report switches lockdep off for the rest of the boot.
# On kernels without KASAN and lockdep, those two paths are not planted
# (see the module) and must come out clean. On 6.12 a module unloaded
# with a leak is kept by upstream, its sites gone.

. /tests/lib.sh
REPORTS=/tmp/sweep-reports
: > $REPORTS

# table FILE: "OUTCOME|SITE" for each row of a sweep's table.
table() {
	sed -n '/^OUTCOME /,/^$/p' "$1" | sed '1d;/^$/d' |
		awk '{ o = substr($0, 1, 11); sub(/ +$/, "", o);
		       s = substr($0, 36); print o "|" s }'
}

# sweep NAME OUT ARGS...: runs codetag sweep ARGS, its table in OUT; the
# splats it reports are added to $REPORTS.
sweep() {
	_name=$1 _out=$2
	shift 2
	_t0=$(date +%s)
	codetag sweep "$@" > "$_out" 2> "$_out.err"
	_rc=$?
	echo "# $_name: exit $_rc in $(($(date +%s) - _t0)) s"
	sed 's/^/#   /' "$_out"
	sed -n 's/^  | //p' "$_out" >> $REPORTS
	return $_rc
}

mkdir -p /tmp/sweep-mnt
sweep tmpfs /tmp/sweep-tmpfs -f mm/shmem.c -t 120 \
	-C 'umount /tmp/sweep-mnt 2>/dev/null' -- \
	sh -c 'mount -t tmpfs none /tmp/sweep-mnt &&
	       echo data > /tmp/sweep-mnt/f && grep -q data /tmp/sweep-mnt/f'
rc=$?
table /tmp/sweep-tmpfs > /tmp/sweep-tmpfs.rows
n=$(wc -l < /tmp/sweep-tmpfs.rows)
check "tmpfs: the sweep ran (exit 0 or 1 with findings: $rc)" [ $rc -le 1 ]
check "tmpfs: it reached fault points of mm/shmem.c ($n)" [ "$n" -ge 3 ]
check "tmpfs: every point reached by the dry run was reached again, armed" \
	sh -c "! grep -q '^not reached|' /tmp/sweep-tmpfs.rows"
check "tmpfs: no point left unswept or hung" \
	sh -c "! grep -q '^not swept|\|^hung|' /tmp/sweep-tmpfs.rows"

insmod /modules/codetag_test_sweep.ko
W='echo 1 > /sys/kernel/debug/codetag_test_sweep'
sweep planted /tmp/sweep-planted -m codetag_test_sweep -- sh -c "$W"
rc=$?
check "planted: the sweep reports findings (exit 1)" [ $rc -eq 1 ]
# The five sites, from the first line of sweep_op() to the last.
table /tmp/sweep-planted |
	awk -F'|' '{ split($2, a, " "); n = split(a[1], fl, ":"); print fl[n] "|" $0 }' |
	sort -t'|' -k1,1n | cut -d'|' -f2- > /tmp/sweep-planted.rows
check_eq "planted: five sites reached" "$(wc -l < /tmp/sweep-planted.rows)" 5
outcome() { sed -n "${1}p" /tmp/sweep-planted.rows | cut -d'|' -f1; }
site() { sed -n "${1}p" /tmp/sweep-planted.rows | cut -d'|' -f2; }
failed=$FAILED
check_eq "planted: the first allocation fails cleanly" "$(outcome 1)" clean
check_eq "planted: the second leaks" "$(outcome 2)" leaked
head_site=$(site 1 | awk '{ print $1 }')
check "... the first allocation's 64 bytes, once, at $head_site" \
	grep -q "^  keeps $(kmalloc_stride 64)B in 1 call: $head_site \[codetag_test_sweep\] func:sweep_op\$" /tmp/sweep-planted
check "... and alloc_tags.ctx names who allocated them: sweep_op, from a write" \
	sh -c "sed -n '/^leaked: /,/reproduce:/p' /tmp/sweep-planted | grep -q '^      sweep_op+' &&
	       sed -n '/^leaked: /,/reproduce:/p' /tmp/sweep-planted | grep -q '^    comm: sh\$'"
if [ -n "$DEBUG_FLAVOR" ]; then
	check_eq "planted: the third frees twice: a splat" "$(outcome 3)" splat
	check "... KASAN's double-free report, quoted" \
		sh -c "sed -n '/^splat: .*:$(site 3 | awk '{ print $1 }' | cut -d: -f2) /,/reproduce:/p' /tmp/sweep-planted |
		       grep -q '^  | BUG: KASAN: double-free in sweep_op'"
	check_eq "planted: the fourth returns with a lock held: a splat" "$(outcome 4)" splat
	check "... lockdep's report, quoted" \
		sh -c "sed -n '/^splat: .*:$(site 4 | awk '{ print $1 }' | cut -d: -f2) /,/reproduce:/p' /tmp/sweep-planted |
		       grep -q '^  | WARNING: lock held when returning to user space'"
else
	check_eq "planted: without KASAN, the third's path is correct" "$(outcome 3)" clean
	check_eq "planted: the fourth's lock bug goes unseen without lockdep" "$(outcome 4)" clean
fi
check_eq "planted: the last allocation fails cleanly" "$(outcome 5)" clean
# What the sweep found, next to a check of it that failed.
[ "$FAILED" = "$failed" ] ||
	grep -v '^  | ' /tmp/sweep-planted | head -100 | detail

# A finding's reproducer sweeps its point alone, and finds it again.
repro=$(sed -n '/^leaked: /,/reproduce:/s/^  reproduce: //p' /tmp/sweep-planted)
echo "# $repro"
sh -c "$repro" > /tmp/sweep-repro 2>&1
failed=$FAILED
check "the leak's reproducer finds the leak again, at that site alone" \
	sh -c "[ \$(sed -n '/^OUTCOME /,/^\$/p' /tmp/sweep-repro | sed '1d;/^\$/d' | wc -l) = 1 ] &&
	       grep -q '^leaked ' /tmp/sweep-repro"
[ "$FAILED" = "$failed" ] || head -60 /tmp/sweep-repro | detail
rmmod codetag_test_sweep 2>/dev/null

# The module's initialisation: each run loads it, the point armed through
# its dynamic_fault= parameter, and it is unloaded after the run.
dmesg_mark
sweep load /tmp/sweep-load --load /modules/codetag_test_sweep.ko
rc=$?
check "load: the sweep reports findings (exit 1)" [ $rc -eq 1 ]
table /tmp/sweep-load |
	awk -F'|' '{ split($2, a, " "); n = split(a[1], fl, ":"); print fl[n] "|" $0 }' |
	sort -t'|' -k1,1n | cut -d'|' -f2- > /tmp/sweep-load.rows
check_eq "load: the initialisation's two sites reached" \
	"$(grep -c ' module:codetag_test_sweep func:codetag_test_sweep_init$' /tmp/sweep-load.rows)" 2
outcome() { sed -n "${1}p" /tmp/sweep-load.rows | cut -d'|' -f1; }
site() { sed -n "${1}p" /tmp/sweep-load.rows | cut -d'|' -f2 | awk '{ print $1 }'; }
failed=$FAILED
check_eq "load: the first allocation fails the load cleanly" "$(outcome 1)" clean
check_eq "load: the second leaks" "$(outcome 2)" leaked
# What the sweep found kept, for a failure above; and, from the kernel,
# each load's arming, each unload that kept the module's tags with what
# was still live then, and the module's sites that still hold something.
if [ "$FAILED" != "$failed" ]; then
	sed -n '/^OUTCOME /,$p' /tmp/sweep-load | grep -v '^  | ' | head -80 | detail
	dmesg_since | grep -E 'codetag_test_sweep: (unloaded|dynamic_fault=|last allocation)' |
		head -40 | detail
	grep 'codetag_test_sweep' /proc/allocinfo | head -20 | detail
fi
if [ "$K612" ]; then
	# Upstream keeps a module that unloads with live allocations, and
	# drops its sites from /proc/allocinfo: what the leak keeps is the
	# module's own memory.
	check "... which shows as the module's memory, which upstream keeps" \
		grep -q "^  keeps .*: mm/execmem.c:[0-9]* func:__execmem_alloc\$" /tmp/sweep-load
else
	# Twice: busybox's insmod tries init_module() when finit_module()
	# fails, and each load takes the parameter afresh.
	check "... the first allocation's 96 bytes, once per load attempt, at $(site 1)" \
		grep -q "^  keeps $((2 * $(kmalloc_stride 96)))B in 2 calls: $(site 1) \[codetag_test_sweep\] func:codetag_test_sweep_init\$" /tmp/sweep-load
	check "... and the tags the failed load keeps for them, in module_alloc()'s area" \
		grep -q "^  keeps .* in 2 calls: arch/x86/kernel/module.c:[0-9]* func:module_alloc\$" /tmp/sweep-load
fi
check "... and its reproducer loads the module too" \
	grep -q '^  reproduce: codetag sweep --load /modules/codetag_test_sweep.ko -m codetag_test_sweep -f ' /tmp/sweep-load
check "load: the module is unloaded after the sweep" [ ! -d /sys/module/codetag_test_sweep ]

# A wider scope with --load: the kernel's own points that the module's
# initialisation reaches (debugfs_create_file()'s dentry), armed through
# the control file for the loader's group.
sweep load-dcache /tmp/sweep-load-dcache --load /modules/codetag_test_sweep.ko \
	-f fs/dcache.c
rc=$?
table /tmp/sweep-load-dcache > /tmp/sweep-load-dcache.rows
check "load, -f fs/dcache.c: the sweep ran (exit $rc)" [ $rc -le 1 ]
check "... it reached points of fs/dcache.c as the module loaded ($(wc -l < /tmp/sweep-load-dcache.rows)), and no other" \
	sh -c "[ -s /tmp/sweep-load-dcache.rows ] && ! grep -v '|fs/dcache.c:' /tmp/sweep-load-dcache.rows"
check "... each reached again, armed, and none hung" \
	sh -c "! grep -q '^not reached|\|^not swept|\|^hung|' /tmp/sweep-load-dcache.rows"
check "... and the module is unloaded after it" [ ! -d /sys/module/codetag_test_sweep ]

# The splats above are the sweeps' findings: splat-check.sh allows those
# lines of the log, quoted in $REPORTS, and no other.
