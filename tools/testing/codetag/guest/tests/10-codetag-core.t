#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The code tag registry seen from a shell: a test type and two modules of
# tags come and go, the listing resumes correctly under tiny reads, kept
# tags of an unloaded module stay until released, and 500 load/unload
# cycles leak nothing (on the debug kernels: 100 cycles under KASAN and
# lockdep).

. /tests/lib.sh
D=/sys/kernel/debug
T=$D/codetag/types
M=/modules

check "codetag/types exists and is root-only (0400)" \
	[ "$(stat -c %a $T 2>/dev/null)" = 400 ]
check "no codetag_test type before its module is loaded" \
	sh -c "[ -r $T ] && ! grep -q '^codetag_test' $T"

# A type registered after a module with its tags finds that module.
insmod $M/codetag_test_tags.ko
dmesg_mark
insmod $M/codetag_test_type.ko
check_eq "a type registered later finds tags of modules loaded before" \
	"$(type_line codetag_test)" "codetag_test vmlinux:0 codetag_test_tags:5"
check "... and calls its module_load callback for them" \
	sh -c "dmesg | tail -n +$((DMESG_MARK + 1)) | grep -q 'codetag_test: codetag_test_tags: 5 tags'"
rmmod codetag_test_tags
check_eq "test type registered with no vmlinux tags" \
	"$(type_line codetag_test)" "codetag_test vmlinux:0"

insmod $M/codetag_test_tags.ko
check_eq "module tags appear on insmod, named by module" \
	"$(type_line codetag_test)" "codetag_test vmlinux:0 codetag_test_tags:5"
insmod $M/codetag_test_more.ko
check_eq "a second module is listed after the first" \
	"$(type_line codetag_test)" \
	"codetag_test vmlinux:0 codetag_test_tags:5 codetag_test_more:2"

cat $D/codetag_test/tags > /tmp/tags
check_eq "tag listing has one line per tag" "$(wc -l < /tmp/tags)" 7
check "every line is 'file:line module:M func:F'" awk '
	$1 !~ /^[^ ]+\.c:[0-9]+$/ || $2 !~ /^module:codetag_test_(tags|more)$/ ||
	$3 !~ /^func:[a-z_0-9]+$/ || $4 !~ /^hits:[0-9]+$/ { bad = 1 }
	END { exit bad }' /tmp/tags
check "sites are named by tree-relative file, module and function" \
	grep -qx "tools/testing/codetag/modules/codetag_test_tags.c:[0-9]* module:codetag_test_tags func:site_one hits:1" /tmp/tags
check "tags of the first module come first" \
	sh -c "head -5 /tmp/tags | grep -c module:codetag_test_tags | grep -qx 5"

for bs in 1 7 61; do
	dd if=$D/codetag_test/tags bs=$bs 2>/dev/null > /tmp/tags.$bs
	check "reading in $bs-byte pieces resumes without skips or repeats" \
		cmp -s /tmp/tags /tmp/tags.$bs
done

# Readers racing with module load and unload on the other CPU: every read
# sees the stable module's tags exactly once and no line twice or torn.
(i=0; while [ $i -lt 100 ]; do
	rmmod codetag_test_more; insmod $M/codetag_test_more.ko; i=$((i + 1))
done) &
churn=$!
bad=0; reads=0
while kill -0 $churn 2>/dev/null || [ $reads -lt 20 ]; do
	dd if=$D/codetag_test/tags bs=7 2>/dev/null > /tmp/race
	reads=$((reads + 1))
	[ "$(grep -c 'module:codetag_test_tags ' /tmp/race)" = 5 ] || bad=$((bad + 1))
	[ "$(sort /tmp/race | uniq -d | wc -l)" = 0 ] || bad=$((bad + 1))
	grep -qvx '[^ ]*\.c:[0-9]* module:codetag_test_[a-z]* func:[a-z_0-9]* hits:[0-9]*' /tmp/race &&
		bad=$((bad + 1))
done
wait $churn
echo "# $reads listings read while a module was loaded and unloaded 100 times"
check_eq "listings read during module churn are consistent" $bad 0
check "the churned module is loaded again at the end" grep -q codetag_test_more /proc/modules

# Control file: the shared query language, applied all or nothing.
C=$D/codetag_test/control
check "control: 'func site_one hit' is accepted" \
	sh -c "echo 'func site_one hit' > $C"
check "control: the selected tag changed" \
	grep -q "func:site_one hits:2" $D/codetag_test/tags
dmesg_mark
check "control: a malformed command is refused" \
	sh -c "! echo 'func site_one line 0-x hit' > $C 2>/dev/null"
check "control: the refusal names the bad word in the log" \
	sh -c "dmesg | tail -n +$((DMESG_MARK + 1)) | grep -q \"bad value '0-x'\""
check "control: a command matching nothing is refused" \
	sh -c "! echo 'module nosuch hit' > $C 2>/dev/null"
check "control: a refused batch changes nothing" \
	sh -c "! printf 'func site_two hit\nfunc site_one frob\n' > $C 2>/dev/null"
check "control: ... site_two still has one hit" \
	grep -q "func:site_two hits:1" $D/codetag_test/tags
# Which tag comes first depends on the modules' order and the compiler's
# layout of their sections: compare the listing before and after.
TAGS=$D/codetag_test/tags
cp $TAGS /tmp/tags.before
echo 'index 0 hit' > $C
cp $TAGS /tmp/tags.after
check "control: 'index 0 hit' selects the first tag listed, and only it" \
	awk 'NR == FNR { line[FNR] = $0; next }
	     FNR == 1 { n = split(line[1], w); split($0, v)
			if (v[n] != "hits:" substr(w[n], 6) + 1) bad = 1; next }
	     $0 != line[FNR] { bad = 1 }
	     END { exit bad || FNR < 2 }' /tmp/tags.before /tmp/tags.after
head -c 5000 /dev/zero | tr '\0' ' ' > /tmp/big
check "control: a write longer than a page is refused" \
	sh -c "! dd if=/tmp/big of=$C bs=5000 count=1 2>/dev/null &&
	       dmesg | tail -1 | grep -q 'command too long (5000 bytes'"
# Hit, so that the reset has something to undo.
echo 'module codetag_test_more hit' > $C
grep -v 'module:codetag_test_more ' $TAGS > /tmp/tags.others
check "control: 'module codetag_test_more hit' hits both its tags" \
	sh -c "[ \$(grep -c 'module:codetag_test_more .*hits:[1-9][0-9]*\$' $TAGS) = 2 ]"
echo 'module codetag_test_more reset' > $C
check "control: 'module codetag_test_more reset' resets that module only" \
	sh -c "[ \$(grep -c 'module:codetag_test_more .*hits:0\$' $TAGS) = 2 ] &&
	       grep -v 'module:codetag_test_more ' $TAGS | cmp -s - /tmp/tags.others"

# "index N" is the position in the listing when the command is applied: a
# module loaded in between comes after every tag listed before it, and
# one unloaded in between moves the tags after it up.
first_more=$(grep -n 'module:codetag_test_more ' $TAGS | head -1)
idx=$((${first_more%%:*} - 1))
site=$(echo "${first_more#*:}" | cut -d' ' -f1)
hits_at() { grep "^$1 " $TAGS | sed 's/.*hits://'; }
h0=$(hits_at "$site")
echo "index $idx hit" > $C
rmmod codetag_test_tags
echo "index 0 hit" > $C
insmod $M/codetag_test_tags.ko
echo "index 0 hit" > $C
check_eq "index $idx, then index 0 after an unload before it and a load, select $site each time" \
	"$(hits_at "$site")" "$((h0 + 3))"

rmmod codetag_test_tags
check_eq "module tags disappear on rmmod" \
	"$(type_line codetag_test)" "codetag_test vmlinux:0 codetag_test_more:2"
rmmod codetag_test_more
check_eq "... and so do the second module's" \
	"$(type_line codetag_test)" "codetag_test vmlinux:0"

# A module whose init fails goes through the same unload path.
check "a module whose init fails does not load" \
	sh -c "! insmod $M/codetag_test_tags.ko fail_init=1 2>/dev/null"
check_eq "... and its tags are not listed" \
	"$(type_line codetag_test)" "codetag_test vmlinux:0"
echo 1 > /sys/module/codetag_test_type/parameters/keep
insmod $M/codetag_test_tags.ko fail_init=1 2>/dev/null
# (busybox insmod tries a failing load twice: one kept copy per attempt)
type_line codetag_test > /tmp/line
check "... unless the type keeps them" \
	grep -Eqx 'codetag_test vmlinux:0( codetag_test_tags\[unloaded\]:5)+' /tmp/line
echo 1 > $D/codetag_test/release
echo 0 > /sys/module/codetag_test_type/parameters/keep
check_eq "... until it releases them" \
	"$(type_line codetag_test)" "codetag_test vmlinux:0"

# A type refusing a module's tags makes its loading fail cleanly.
echo 1 > /sys/module/codetag_test_type/parameters/refuse_load
check "a module whose tags are refused does not load" \
	sh -c "! insmod $M/codetag_test_tags.ko 2>/dev/null"
check "... and is not listed" sh -c "! grep -q codetag_test_tags /proc/modules"
echo 0 > /sys/module/codetag_test_type/parameters/refuse_load

# Keep-on-unload: the type keeps the module's tags, in an area of their
# own; the rest of the module (its code, data and strings) goes.
echo 1 > /sys/module/codetag_test_type/parameters/keep
vm0=$(meminfo VmallocUsed)
insmod $M/codetag_test_tags.ko
# vmallocinfo prints real addresses only with kptr_restrict at 1 (to root).
kptr=$(cat /proc/sys/kernel/kptr_restrict)
echo 1 > /proc/sys/kernel/kptr_restrict
core=$(awk '$1 == "codetag_test_tags" { print $6 }' /proc/modules)
mapped=$(grep -c "^$core-" /proc/vmallocinfo)
grep 'module:codetag_test_tags ' $D/codetag_test/tags | sed 's/ hits:.*//' > /tmp/tags-loaded
dmesg_mark
rmmod codetag_test_tags
check_eq "kept tags stay listed, marked unloaded" \
	"$(type_line codetag_test)" "codetag_test vmlinux:0 codetag_test_tags[unloaded]:5"
check "kept tags print with [unloaded]" \
	sh -c "grep -c 'module:codetag_test_tags func:.* \[unloaded\] hits:' $D/codetag_test/tags | grep -qx 5"
grep 'module:codetag_test_tags ' $D/codetag_test/tags | sed 's/ \[unloaded\] hits:.*//' > /tmp/tags-kept
check "... with the file, line and function each had while loaded" \
	sh -c "[ -s /tmp/tags-loaded ] && cmp -s /tmp/tags-loaded /tmp/tags-kept"
check_eq "the module's core ($core) was mapped while it was loaded" \
	"$mapped" 1
check "... and is freed on unload, though its tags are kept" \
	sh -c "! grep -q '^$core-' /proc/vmallocinfo"
echo $kptr > /proc/sys/kernel/kptr_restrict
check "unload with kept tags is logged" \
	sh -c "dmesg | tail -n +$((DMESG_MARK + 1)) | grep -q 'codetag_test_tags: unloaded, but 1 tag type(s) still use its tags'"
insmod $M/codetag_test_tags.ko
check_eq "the module loads again beside its kept tags" \
	"$(type_line codetag_test)" \
	"codetag_test vmlinux:0 codetag_test_tags[unloaded]:5 codetag_test_tags:5"
rmmod codetag_test_tags
echo 1 > $D/codetag_test/release
check_eq "released tags are gone" "$(type_line codetag_test)" "codetag_test vmlinux:0"
check "release frees the module memory" \
	sh -c "dmesg | grep -q 'codetag_test_tags: tags no longer in use, freeing'"
check "vmalloc use is back where it was" \
	[ $(( $(meminfo VmallocUsed) - vm0 )) -le 64 ]
echo 0 > /sys/module/codetag_test_type/parameters/keep

# Unloading the type releases what it still keeps.
echo 1 > /sys/module/codetag_test_type/parameters/keep
insmod $M/codetag_test_more.ko
rmmod codetag_test_more
dmesg_mark
rmmod codetag_test_type
check "unregistering the type removes it from the listing" \
	sh -c "[ -r $T ] && ! grep -q '^codetag_test' $T"
check "... and frees the memory of the module whose tags it kept" \
	sh -c "dmesg | tail -n +$((DMESG_MARK + 1)) | grep -q 'codetag_test_more: tags no longer in use, freeing'"

# 500 load/unload cycles, after 100 to settle the slab caches: nothing may
# accumulate. Allocation profiling sees a leak where it is: one allocation
# a cycle left behind is 500 more live allocations on one line of
# allocinfo, whatever its size, while the lines of the rest of the
# system move by tens (the readings themselves are tmpfs pages). The
# totals are the backstop for memory that no line accounts for, and they
# move with the rest of the system: the slabs that the per-CPU partial
# lists happen to hold come and go, and after the warm-up memory keeps
# coming back for a while (on arm64 with generic KASAN, Slab fell by
# 68 kB in a first window and by 100 kB more before the next). So the
# totals must not grow beyond a bound, and a window that exceeds one is
# measured again, up to three: a leak grows in each. Slab has grown by up
# to 32 kB in a window without a leak; its bound, 64 kB, is exceeded by a
# leak of one 192-byte object a cycle (94 kB).
# Free memory has fallen by up to 3.5 MB in a first window (the distro
# guest) and by 456 kB in later ones; its bound, 1 MB, is half of what a
# leak of a page a cycle takes.
cycle() {
	insmod $M/codetag_test_type.ko &&
	insmod $M/codetag_test_tags.ko &&
	cat $D/codetag_test/tags > /dev/null &&
	rmmod codetag_test_tags &&
	rmmod codetag_test_type
}
i=0
while [ $i -lt 100 ]; do cycle || break; i=$((i + 1)); done
# On the debug kernels the warm-up is the test: KASAN and lockdep watch
# every load, listing and unload. Their leak windows would take five
# minutes of the slowest boot for a weaker bound than the kernels without
# them check (KASAN's quarantine and lockdep's own allocations move the
# totals), so the leak is left to those.
if [ -n "$DEBUG_FLAVOR" ]; then
	check_eq "100 load/unload cycles all succeed under KASAN and lockdep" $i 100
	check "nothing is left registered" sh -c "[ -r $T ] && ! grep -q '^codetag_test' $T"
	exit 0
fi
settle() {
	echo 3 > /proc/sys/vm/drop_caches 2>/dev/null
}
site_max=250; slab_max=64; free_max=1024; windows=3
window=0
site_ok=
slab_ok=
free_ok=
while [ $window -lt $windows ]; do
	window=$((window + 1))
	settle
	cat /proc/allocinfo > /tmp/allocinfo.0
	slab0=$(meminfo Slab); free0=$(free_kb); vm0=$(meminfo VmallocUsed)
	i=0
	while [ $i -lt 500 ]; do cycle || break; i=$((i + 1)); done
	[ $i -eq 500 ] || break
	settle
	slab1=$(meminfo Slab); free1=$(free_kb); vm1=$(meminfo VmallocUsed)
	cat /proc/allocinfo > /tmp/allocinfo.1
	set -- $(site_growth /tmp/allocinfo.0 /tmp/allocinfo.1)
	grown_calls=$1 grown_bytes=$2
	shift 2
	grown_site="$*"
	echo "# window $window: Slab ${slab0} -> ${slab1} kB, free ${free0} -> ${free1} kB, VmallocUsed ${vm0} -> ${vm1} kB"
	echo "# window $window: most grown line: $grown_calls allocations, $grown_bytes bytes, $grown_site"
	[ "$grown_calls" -lt $site_max ] && site_ok="$grown_calls at $grown_site"
	[ $((slab1 - slab0)) -le $slab_max ] && slab_ok=$((slab1 - slab0))
	[ $((free0 - free1)) -le $free_max ] && free_ok=$((free0 - free1))
	[ -n "$site_ok" ] && [ -n "$slab_ok" ] && [ -n "$free_ok" ] && break
done
check_eq "500 load/unload cycles all succeed" $i 500
check "no allocinfo line gained $site_max live allocations over 500 cycles in one of $window windows (${site_ok:-none})" \
	[ -n "$site_ok" ]
check "Slab grew by at most $slab_max kB over 500 cycles in one of $window windows (${slab_ok:-none} kB)" \
	[ -n "$slab_ok" ]
check "free memory (per-CPU lists included) fell by at most $free_max kB over 500 cycles in one of $window windows (${free_ok:-none} kB)" \
	[ -n "$free_ok" ]
check "VmallocUsed is back where it was after 500 cycles" \
	[ $((vm1 - vm0)) -le 64 ]
check "nothing is left registered" sh -c "[ -r $T ] && ! grep -q '^codetag_test' $T"
