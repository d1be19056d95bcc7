#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# "make check": every test layer, one "ok"/"not ok" line per check, and a
# last line "N passed, N failed". Exits non-zero if anything failed.
#
# LAYERS="kunit guest" (words or commas) runs only the layers it names,
# for iteration: kunit, tool, guest, w1, compile-fail, distro, static,
# patch, series, arm64, debug, soak, and 6.12 (or one of its layers:
# 6.12-distro, 6.12-arm64, 6.12-static). The last line still
# counts what ran; the line before it says which layers did not.
#
# Build output goes to build/logs/; a failing step prints the tail of its
# log. The time of every kernel build and every boot is printed at the end.

set -uo pipefail

HARNESS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HARNESS/../../.." && pwd)
B=$ROOT/build
LOGS=$B/logs
H=$HARNESS/harness.sh
PASS=0
FAIL=0

mkdir -p "$LOGS"
# harness.sh adds a row for each build it makes to the table of times.
export CODETAG_TIMES=$LOGS/layer-times

pass() { echo "ok - $*"; PASS=$((PASS + 1)); }
fail() { echo "not ok - $*"; FAIL=$((FAIL + 1)); }

# step NAME LOG COMMAND...: run a build step quietly; one check line.
step() {
	local name=$1 log=$LOGS/$2.log t0=$SECONDS
	shift 2
	if "$@" > "$log" 2>&1; then
		pass "$name"
		echo "#   ($((SECONDS - t0)) s)"
		record_step "$name" $((SECONDS - t0))
		return 0
	fi
	record_step "$name" $((SECONDS - t0))
	fail "$name (log: ${log#$ROOT/})"
	tail -25 "$log" | sed 's/^/#   /'
	return 1
}

# record_step NAME SECONDS: a step's time in the table of times. harness.sh
# records its builds itself (CODETAG_TIMES), without the time a step
# waited for the background build of the same flavour.
record_step() {
	case $1 in
	*"kernel builds"|*"boot image build"|*"root image"|*"tree unpacked"*) ;;
	*)	record host "$1" "$2" ;;
	esac
}

# timed NAME COMMAND...: run COMMAND, then say how long it took, so that
# a slow run shows where its time went (the layer's wall time, its
# builds and boots included).
timed() {
	local name=$1 t0=$SECONDS
	shift
	"$@"
	echo "# $name: $((SECONDS - t0)) s"
	# A layer left out by LAYERS takes no time, and is no row.
	[ $((SECONDS - t0)) -eq 0 ] || record layer "$name" $((SECONDS - t0))
}

# timed_boot FLAVOR MODE: harness.sh boot, its time kept for the summary.
timed_boot() {
	local t0=$SECONDS
	"$H" boot "$@"
	record boot "${KLABEL:-}$1 $2" $((SECONDS - t0))
}

# The tree that KERNEL (6.1 by default) is built from.
tree_of() {
	case ${KERNEL:-6.1} in
	6.12)	echo "$ROOT/build/6.12/linux" ;;
	*)	echo "$ROOT/build/linux" ;;
	esac
}

LAYERS=$(echo "${LAYERS:-}" | tr ',' ' ')
ALL_LAYERS="kunit tool guest w1 compile-fail distro static patch series arm64 debug soak 6.12-distro 6.12-arm64 6.12-static"
for l in $LAYERS; do
	case " $ALL_LAYERS 6.12 " in
	*" $l "*) ;;
	*)	echo "make check: LAYERS: unknown layer '$l' (known: $ALL_LAYERS 6.12)" >&2
		exit 2 ;;
	esac
done

# selected LAYER: LAYERS is empty (every layer) or names LAYER; "6.12"
# names each of the 6.12 layers.
selected() {
	[ -z "$LAYERS" ] && return 0
	case " $LAYERS " in *" $1 "*) return 0 ;; esac
	case $1 in 6.12*) case " $LAYERS " in *" 6.12 "*) return 0 ;; esac ;; esac
	return 1
}
left_out() { ! selected "$1"; }
# skipped LAYER: LAYER is not selected; said, not counted.
skipped() {
	selected "$1" && return 1
	echo "# $1: not in LAYERS"
	return 0
}

# record KIND NAME SECONDS: one row of the closing table of times.
record() {
	printf '%s\t%s\t%s\n' "$1" "$2" "$3" >> "$CODETAG_TIMES"
}

# Results of a guest run: its ok/not ok lines, a complete run, a clean
# console.
# KLABEL, if set, prefixes the checks' names (the 6.12 layer's).
guest_results() {
	local flavor=$1 mode=${2:-test} name=${KLABEL:-}$1
	local results=$B/$mode-$flavor.txt console=$LOGS/boot-$flavor.log
	local n=0 line

	if [ "$mode" != test ]; then
		name="${KLABEL:-}$flavor $mode"
		console=$LOGS/boot-$flavor-$mode.log
	fi
	if [ -f "$results" ]; then
		while IFS= read -r line; do
			line=${line%$'\r'}
			case $line in
			"ok - "*) pass "$name: ${line#ok - }"; n=$((n + 1)) ;;
			"not ok - "*) fail "$name: ${line#not ok - }"; n=$((n + 1)) ;;
			# What the guest said about a check: shown with it.
			"#   "*) echo "$line" ;;
			esac
		done < "$results"
	fi
	if grep -q "codetag guest: done" "$console"; then
		pass "$name: guest ran all tests and shut down ($n checks)"
	else
		fail "$name: guest did not finish (console: ${console#$ROOT/})"
		tail -30 "$console" | sed 's/^/#   /'
	fi
	# A sweep's boot provokes splats: the guest, which finished, has
	# checked that its log holds those the sweeps reported, and no other.
	[ "$mode" = sweep ] && grep -q "codetag guest: done" "$console" && return
	console_clean "$name" "$console" "$([ "$mode" = soak ] && echo 1 || echo 0)"
}

# console_clean NAME CONSOLE ALLOWED: one check that CONSOLE holds no splat
# (guest/tests/splats.awk; ALLOWED=1 lets the reports of faults injected
# on purpose pass).
console_clean() {
	local name=$1 console=$2 allowed=$3 first

	awk -v allowed="$allowed" -f "$HARNESS/guest/tests/splats.awk" \
		"$console" > "$console.splats"
	if [ -s "$console.splats" ]; then
		fail "$name: console free of splats"
		head -10 "$console.splats" | sed 's/^/#   /'
		# The first report whole: which task, which address, the stack.
		first=$(grep -n -m1 -F -- "$(head -1 "$console.splats")" \
			"$console" | cut -d: -f1)
		echo "#   the first report in its context:"
		sed -n "${first:-1},$((${first:-1} + 50))p" "$console" |
			sed 's/^/#   | /'
	else
		pass "$name: console free of splats"
	fi
}

# A root filesystem refused at boot: the kernel's messages name the line
# of the check that refused it. One boot with an option ext4 refuses, one
# from a disk whose superblock fails its checksum; both end in the panic
# of a kernel without a root.
root_refusals() {
	local flavor=$1 log=$LOGS/boot-$1-rootopt.log
	CODETAG_APPEND="rootflags=journal_ioprio=9" \
		timed_boot "$flavor" rootfail > "$log" 2>&1
	tr -d '\r' < "$log" | grep -E "ext4|VFS|No filesystem" | sed 's/^/#   /'
	grep_step "${KLABEL:-}$flavor: a refused root option is logged with its line" "$log" \
		"ext4: option 'journal_ioprio' refused: error -EINVAL at fs/ext4/super\.c:[0-9]+"
	grep_step "${KLABEL:-}$flavor: ... and the root mount's last message names it" "$log" \
		"VFS: ext4 refused the root: error -EINVAL at fs/ext4/super\.c:[0-9]+"
	log=$LOGS/boot-$flavor-badroot.log
	CODETAG_BAD_ROOT=1 timed_boot "$flavor" rootfail > "$log" 2>&1
	tr -d '\r' < "$log" | grep -E "ext4|VFS|No filesystem" | sed 's/^/#   /'
	grep_step "${KLABEL:-}$flavor: a root whose superblock fails its checksum: the VFS names the check" "$log" \
		"VFS: Cannot open root device \"(/dev/)?vdc\" or unknown-block\([0-9]+,[0-9]+\): error -EBADMSG at fs/ext4/super\.c:[0-9]+"
}

# grep_step NAME FILE ERE: passes if the console log has a line matching.
grep_step() {
	if tr -d '\r' < "$2" | grep -qE "$3"; then
		pass "$1"
	else
		fail "$1"
	fi
}

guest_layer() {
	local flavor=$1
	skipped "$flavor" && return
	step "$flavor: kernel builds" "kernel-$flavor" "$H" kernel "$flavor" || return
	kunit_flavor "$flavor" && [ "$flavor" != debug ] &&
		codetag_warnings "$flavor" "$LOGS/kernel-$flavor.log"
	case $flavor in
	distro*) step "$flavor: no new warnings (each file that warns, built in 6.1 too)" \
			"warnings-$flavor" "$H" warnings "$flavor" ;;
	esac
	step "$flavor: test modules and boot image build" "initramfs-$flavor" \
		"$H" initramfs "$flavor" || return
	timed_boot "$flavor" test > "$LOGS/boot-$flavor.log" 2>&1
	guest_results "$flavor"
	kunit_flavor "$flavor" && kunit_boot "$flavor"
	# A second boot with profiling off: tags never live, then switched on.
	timed_boot "$flavor" offboot > "$LOGS/boot-$flavor-offboot.log" 2>&1
	guest_results "$flavor" offboot
	# A boot with profiling off for good, on the small guest: nothing
	# charged, no vectors, the sysctl refuses. That the slab caches are
	# laid out as without the option, "make bench" shows against the
	# compiled-out kernels it builds anyway.
	if [ "$flavor" = guest ]; then
		timed_boot "$flavor" never > "$LOGS/boot-$flavor-never.log" 2>&1
		guest_results "$flavor" never
	fi
	[ "$flavor" = distro ] && root_refusals "$flavor"
	# codetag sweep on tmpfs and on planted bugs, where KASAN and
	# lockdep catch what the error paths do.
	if [ "$flavor" = debug ]; then
		timed_boot "$flavor" sweep > "$LOGS/boot-$flavor-sweep.log" 2>&1
		guest_results "$flavor" sweep
	fi
	if [ "$flavor" = guest ]; then
		# time_stats against busy waits of known lengths, in a boot
		# whose time counts instructions, so that no figure depends on
		# the host.
		timed_boot "$flavor" clock > "$LOGS/boot-$flavor-clock.log" 2>&1
		guest_results "$flavor" clock
		# make demo's last boot: an empty RAM disk as the ext4 root.
		CODETAG_APPEND="rdinit=/none root=/dev/ram0 rootfstype=ext4" \
			timed_boot "$flavor" rootfail \
			> "$LOGS/boot-$flavor-rootfail.log" 2>&1
		grep_step "$flavor: an ext4 root without a filesystem is refused, and the log names the check" \
			"$LOGS/boot-$flavor-rootfail.log" \
			"VFS: ext4 refused the root: error -EINVAL at fs/ext4/super\.c:[0-9]+"
	fi
}

# The soak: stress with faults injected, while modules come and go and
# every control is switched (guest/distro-tests/soak.sh), then the control
# plane's torture, on the distro kernel, booted from a fresh root image.
# KASAN, UBSAN and lockdep run the same tests on the small guest (debug);
# "make soak" runs the soak for longer on the distro kernel
# with them (distro-debug), whose build alone would take a cold run past
# its time.
soak_layer() {
	local flavor=distro
	skipped soak && return
	step "$flavor: kernel builds" "kernel-$flavor" "$H" kernel "$flavor" ||
		return
	# Disks of its own: the distro layer boots the same flavour meanwhile.
	local -x CODETAG_DISK=soak
	step "$flavor soak: a fresh root image" "image-$flavor-soak" \
		"$H" initramfs "$flavor" || return
	timed_boot "$flavor" soak > "$LOGS/boot-$flavor-soak.log" 2>&1
	guest_results "$flavor" soak
}

# The KUnit suites are built into kernels that make check boots anyway,
# and run before init in a boot of their own (kunit.enable=1), as kernel
# CI systems run them, instead of in kernels of their own (UML, arm64):
# a boot of its own, so that no test finds what the suites left. 6.1's
# in the guest (page tags in page->flags, fault points), the arm64 guest
# (arm64's page->flags; two vCPUs on two host threads, which the flag
# writers' race needs), the distro kernel (Debian's NUMA configuration,
# where page tags go to page_ext) and the debug kernel (only the case
# that needs its page reference tracepoints); 6.12's in its distro kernel.
# harness.sh boot's kunit mode says which suites each one runs.
kunit_flavor() {
	"$H" has-kunit "$1"
}

# The one case the debug kernel runs (harness.sh boot names it too).
KUNIT_DEBUG_CASE=alloc_tag_test_free_tail_race

# kunit_results NAME CONSOLE [CASE]: the suites' results on a guest's
# console, parsed by the tree's kunit.py as it parses a kunit.py run's:
# one check per case, a skipped case a failure, then one check that the
# run completed. With CASE, that case is the only one expected.
kunit_results() {
	local name="$1 KUnit" console=$2 only=${3:-} log=$LOGS/$1-kunit.log
	local line n=0 rc cases=
	log=${log// /-}
	tr -d '\r' < "$console" |
		python3 "$(tree_of)/tools/testing/kunit/kunit.py" parse > "$log" 2>&1
	rc=$?
	# kunit.py prints "[PASSED] case" per test case; suite lines have "====".
	while IFS= read -r line; do
		case $line in
		*"===="*) ;;
		*"] [PASSED] "*) pass "$name: ${line##*"] [PASSED] "}"; n=$((n + 1))
			cases="$cases ${line##*"] [PASSED] "}" ;;
		*"] [FAILED] "*) fail "$name: ${line##*"] [FAILED] "}"; n=$((n + 1)) ;;
		*"] [CRASHED] "*) fail "$name: ${line##*"] [CRASHED] "} crashed"; n=$((n + 1)) ;;
		*"] [SKIPPED] "*) fail "$name: ${line##*"] [SKIPPED] "} was skipped"; n=$((n + 1)) ;;
		esac
	done < "$log"
	if [ -n "$only" ] && [ "$cases" != " $only" ]; then
		fail "$name: only $only ran, and passed (ran:${cases:- none})"
	elif [ $rc -eq 0 ] && [ $n -gt 0 ]; then
		pass "$name: run completed ($n cases)"
	else
		fail "$name: run failed (status $rc, $n cases; log: ${log#$ROOT/})"
		grep -E "FAILED|CRASHED|Expected|error:" "$log" | head -30 | sed 's/^/#   /'
	fi
}

# kunit_boot FLAVOR: FLAVOR booted for its KUnit suites; their results
# and a clean console.
kunit_boot() {
	local only=
	[ "$1" = debug ] && only=$KUNIT_DEBUG_CASE
	timed_boot "$1" kunit > "$LOGS/boot-$1-kunit.log" 2>&1
	guest_results "$1" kunit
	kunit_results "${KLABEL:-}$1" "$LOGS/boot-$1-kunit.log" $only
}

# A gcc warning in a file of the codetag core or its applications.
# On 6.12 also the core's lib/codetag.c and lib/codetag_control.c.
CODETAG_WARNING='(lib|include/linux)/codetag(/[^ ]*|[^/ ]*\.[ch]):[0-9]+:[0-9]+: warning:'

# codetag_warnings NAME LOG: a kernel build's log (a clean clone builds
# each object tree afresh, and ccache replays a cached file's warnings)
# has no warning in codetag's own files, the KUnit suites' included.
codetag_warnings() {
	local warned
	warned=$(grep -E "$CODETAG_WARNING" "$2" | sort -u)
	if [ -z "$warned" ]; then
		pass "$1: no compiler warnings in codetag's files"
	else
		fail "$1: compiler warnings in codetag's files (log: ${2#$ROOT/})"
		echo "$warned" | head -20 | sed 's/^/#   /'
	fi
}

# LAYERS=kunit without the layer that boots the suites' kernel: that
# kernel booted for its KUnit suites alone (its init runs tests/kunit.sh
# only). kunit_layer LAYER FLAVOR: 6.1's guest layer, 6.12's distro.
kunit_layer() {
	selected "$1" && return
	step "${KLABEL:-}$2: kernel builds" "kernel-$2" "$H" kernel "$2" || return
	codetag_warnings "${KLABEL:-}$2" "$LOGS/kernel-$2.log"
	step "${KLABEL:-}$2: test modules and boot image build" "initramfs-$2" \
		"$H" initramfs "$2" || return
	kunit_boot "$2"
}

# checkpatch --strict on every patch of the series, every file it creates
# (as the tree built has it) and the test modules. The first patch adds
# the MAINTAINERS entry that covers every file the series creates;
# checkpatch asks again on each later patch that adds a file
# (FILE_PATH_CHANGES), so that question is left out.
# With KERNEL=6.12, the same for patches-6.12/, in the 6.12 tree.
checkpatch_layer() {
	local f out tree=$(tree_of) what="'patches/*.patch'" label=
	if [ "${KERNEL:-6.1}" = 6.12 ]; then
		what="'patches-6.12/*.patch'"
		label="6.12: "
	else
		what="$what 'tools/testing/codetag/modules/*.[ch]'"
	fi
	for f in $(cd "$ROOT" && eval git ls-files -co --exclude-standard "$what") \
		 $("$H" new-files); do
		case $f in
		*Makefile|*Kbuild|*.kunitconfig|*.rst|*/.gitignore) continue ;;
		patches*/*) out=$(cd "$tree" && ./scripts/checkpatch.pl \
				--strict -q --ignore FILE_PATH_CHANGES \
				"$ROOT/$f" 2>&1) ;;
		tools/testing/codetag/*) out=$(cd "$tree" && ./scripts/checkpatch.pl \
				--strict -q -f "$ROOT/$f" 2>&1) ;;
		*) out=$(cd "$tree" && ./scripts/checkpatch.pl --strict \
				-q -f "$f" 2>&1) ;;
		esac
		if [ -z "$out" ]; then
			pass "${label}checkpatch --strict: $f"
		else
			fail "${label}checkpatch --strict: $f"
			echo "$out" | head -20 | sed 's/^/#   /'
		fi
	done
}

# ERR() codes compared with plain errnos, or handed on where no system
# call return converts them (errcode-check/): first on a fixture whose
# every finding the check must find (the lines marked "finding: line N")
# and nothing else, then on the tree built here, where it must find none.
errcode_check_layer() {
	local dir=$HARNESS/errcode-check got want out rc
	got=$(cd "$dir" && python3 errcode-check.py fixture | sed -n 's/^\([^#][^:]*:[0-9]*\):.*/\1/p')
	want=$(grep -o 'finding: line [0-9]*' "$dir/fixture/fs/refuse.c" |
	       sed 's|finding: line |fs/refuse.c:|')
	if [ -n "$want" ] && [ "$got" = "$want" ]; then
		pass "errcode-check finds each comparison and each hand-over of the fixture, and no other ($(echo $want | wc -w))"
	else
		fail "errcode-check finds each comparison and each hand-over of the fixture, and no other"
		echo "#   want: $(echo $want)"
		echo "#   got:  $(echo $got)"
	fi
	errcode_check_tree "$B/linux" ""
	err_name_check "$B/linux" ""
	exports_check patches ""
}

# errcode_check_tree TREE LABEL: no ERR() code of TREE reaches a
# comparison with a plain errno, or a boundary that hands it on.
errcode_check_tree() {
	local dir=$HARNESS/errcode-check out rc
	out=$(cd "$1" && python3 "$dir/errcode-check.py" . 2>&1)
	rc=$?
	echo "$out" | grep '^# [0-9]' | sed 's/^/#   /'
	if [ $rc -eq 0 ]; then
		pass "${2}errcode-check: no ERR() code reaches a comparison with a plain errno, or a boundary that hands it on"
	else
		fail "${2}errcode-check: no ERR() code reaches a comparison with a plain errno, or a boundary that hands it on"
		echo "$out" | grep -v '^# [0-9r]' | head -20 | sed 's/^/#   /'
	fi
}

# err_name_check TREE LABEL: the short name ERR() reaches only the files
# that ask for it. <linux/codetag/err.h> defines it; no header includes
# that one, and no file that defines an ERR of its own does (drivers'
# log macros and register bits, whatever their configuration); headers
# make codes with ERRCODE().
err_name_check() {
	local tree=$1 own bad
	own=$(cd "$tree" && grep -rlE --include='*.[ch]' --exclude-dir='out-*' \
		'^[[:space:]]*#[[:space:]]*define[[:space:]]+ERR\b' . |
		grep -v '^\./include/linux/codetag/err\.h$')
	bad=$(cd "$tree" && grep -rlE --include='*.[ch]' --exclude-dir='out-*' \
		'#[[:space:]]*include[[:space:]]+<linux/codetag/err\.h>' . |
		while read -r f; do
			case $f in *.h) echo "$f" ;; esac
			echo "$own" | grep -qxF "$f" && echo "$f"
		done)
	if [ -n "$own" ] && [ -z "$bad" ]; then
		pass "${2}ERR() reaches no header and none of the $(echo "$own" | wc -l) files with an ERR of their own"
	else
		fail "${2}ERR() reaches no header and none of the files with an ERR of their own"
		echo "$bad" | head -10 | sed 's/^/#   includes <linux\/codetag\/err.h>: /'
	fi
}

# exports_check DIR LABEL: every symbol the pristine kernel exports is
# still exported once the series in DIR is applied: over its patches, no
# symbol loses more EXPORT_SYMBOL*() lines than it gains (moved is fine),
# but for an allocation function that becomes a macro over its exported
# _noprof() form, as upstream's allocation profiling made them.
exports_check() {
	local lost
	lost=$(cat "$ROOT/$1"/[0-9]*.patch |
		sed -nE 's/^([-+])[[:space:]]*EXPORT_SYMBOL[A-Z_]*\([[:space:]]*([A-Za-z0-9_]+).*/\1 \2/p' |
		awk '{ n[$2] += ($1 == "+") ? 1 : -1 }
		     END { for (s in n) if (n[s] < 0 && n[s "_noprof"] <= 0) print s }' |
		sort)
	if [ -z "$lost" ]; then
		pass "${2}$1 removes no export of the kernel it applies to"
	else
		fail "${2}$1 removes no export of the kernel it applies to"
		echo "$lost" | sed 's/^/#   no longer exported: /'
	fi
}

# Every exported function has kernel-doc, and kernel-doc has no complaint.
# On 6.12, also upstream's core files the series adds exports to.
kerneldoc_layer() {
	local f sym out missing="" tree=$(tree_of) label= files
	files=$("$H" new-files | grep -E '^(lib/codetag[^/]*/[^/]*\.c|lib/codetag_[^/]*\.c|include/linux/codetag/.*\.h)$')
	if [ "${KERNEL:-6.1}" = 6.12 ]; then
		label="6.12: "
		files="$files lib/codetag.c include/linux/codetag.h"
	fi
	for f in $files; do
		out=$(cd "$tree" && ./scripts/kernel-doc -none -v "$f" 2>&1 |
		      grep -i warning)
		if [ -n "$out" ]; then
			fail "${label}kernel-doc: $f"
			echo "$out" | head -10 | sed 's/^/#   /'
		else
			pass "${label}kernel-doc: $f"
		fi
		for sym in $(sed -n 's/^EXPORT_SYMBOL_GPL(\(.*\));/\1/p' "$tree/$f"); do
			# A static key has no kernel-doc form; the inline
			# function that tests it is documented instead.
			grep -q "^DEFINE_STATIC_KEY_[A-Z]*($sym)" "$tree/$f" &&
				continue
			# Upstream's own exports are upstream's to document.
			[ "$f" = lib/codetag.c ] &&
				! grep -q "^+EXPORT_SYMBOL_GPL($sym);" \
					"$ROOT"/patches-6.12/*.patch && continue
			# At the definition, or at the declaration.
			grep -q "^ \* $sym() - " "$tree/$f" \
				"$tree"/include/linux/codetag.h \
				"$tree"/include/linux/codetag/*.h 2>/dev/null ||
				missing="$missing $sym"
		done
	done
	if [ -z "$missing" ]; then
		pass "${label}kernel-doc: every exported function is documented"
	else
		fail "${label}kernel-doc: undocumented exports:$missing"
	fi
}

# The documentation builds with Sphinx without a warning.
docs_layer() {
	local tree=$(tree_of) label= log=$LOGS/htmldocs.log out
	if [ "${KERNEL:-6.1}" = 6.12 ]; then
		label="6.12: "
		log=$LOGS/htmldocs-6.12.log
	fi
	make -C "$tree" O="$tree/out-docs" SPHINXDIRS=codetag htmldocs \
		> "$log" 2>&1
	# dot(1) is only for graphs, which these pages do not have.
	out=$(grep -E "WARNING|ERROR" "$log" | grep -v "dot(1) not found")
	if [ -z "$out" ] && [ -f "$tree/out-docs/Documentation/output/codetag/index.html" ]; then
		pass "${label}htmldocs: Documentation/codetag builds without warnings"
	else
		fail "${label}htmldocs: Documentation/codetag (log: ${log#$ROOT/})"
		echo "$out" | head -10 | sed 's/^/#   /'
	fi
}

# The core must build without warnings at W=1. Kbuild notices the changed
# flags, so this recompiles our objects and the next normal build redoes them.
# w1_check NAME LOG MAKE-ARGUMENTS...: make with W=1, one check line.
# The compiler's warnings (file:line:column): not bison's, whose host
# programs (genksyms, with Debian's MODVERSIONS) a W=1 build remakes.
W1_WARNING=':[0-9]+:[0-9]+: warning:'
w1_check() {
	local name=$1 log=$2
	shift 2
	if ! make W=1 CC="ccache gcc" "$@" > "$log" 2>&1; then
		fail "$name (log: ${log#$ROOT/})"
		tail -20 "$log" | sed 's/^/#   /'
	elif grep -Eq "$W1_WARNING" "$log"; then
		fail "$name is warning-free"
		grep -E "$W1_WARNING" "$log" | head -20 | sed 's/^/#   /'
	else
		pass "$name is warning-free"
	fi
}

w1_layer() {
	skipped w1 && return
	w1_check "W=1 build of lib/codetag" "$LOGS/w1.log" \
		-C "$B/linux" O="$B/linux/out-guest" lib/codetag/
}

# The guest tests that both series pass so far.
TESTS_612=30-dynamic-fault.t,35-fault-points.t,40-time-stats.t,50-errcode.t,60-alloc-tag-ctx.t,70-tool.t,75-control-fuzz.t,80-control-torture.t

# boot_612 FLAVOR: the 6.12 series' FLAVOR kernel and image built, and
# booted with the guest tests both series pass.
boot_612() {
	step "6.12 $1: kernel builds" "kernel-$1" "$H" kernel "$1" || return
	kunit_flavor "$1" && codetag_warnings "6.12 $1" "$LOGS/kernel-$1.log"
	step "6.12 $1: test modules and boot image build" "initramfs-$1" \
		"$H" initramfs "$1" || return
	CODETAG_APPEND="codetag.tests=$TESTS_612" \
		timed_boot "$1" test > "$LOGS/boot-$1.log" 2>&1
	guest_results "$1"
	kunit_flavor "$1" && kunit_boot "$1"
}

# The 6.12 series on Debian's own 6.12 configuration, booted from the
# Debian root filesystem: the guest tests that both series pass so far
# (fault injection, latency statistics, error codes, the tool, the
# control file fuzz and torture, on what 6.12 has), the distro kernel's
# boot, KFENCE's objects charged to their line, ext4, xfs and btrfs
# refusing mount options with their lines; its KUnit suites in a boot of
# their own, codetag sweep in another, the root refusals, and W=1 on the
# series' files in its object tree; its files in build/6.12/. No small
# 6.12 guest is built: each of its checks runs here, and make demo
# builds one when asked (KERNEL=6.12).
DISTRO_TESTS_612=05-boot.t,60-errcode-mounts.t,75-kfence.t
distro_612() {
	local B=$ROOT/build/6.12 LOGS=$ROOT/build/6.12/logs KLABEL="6.12 "
	skipped 6.12-distro && return
	mkdir -p "$LOGS"
	TESTS_612=$TESTS_612,$DISTRO_TESTS_612 boot_612 distro || return
	step "6.12 distro: no new warnings (each file that warns, built in 6.12 too)" \
		warnings-distro "$H" warnings distro
	timed_boot distro sweep > "$LOGS/boot-distro-sweep.log" 2>&1
	guest_results distro sweep
	root_refusals distro
	w1_check "6.12: W=1 build of the codetag files" "$LOGS/w1-6.12.log" \
		-C "$B/linux" O="$B/linux/out-distro" \
		lib/codetag.o lib/codetag_control.o lib/codetag/
}

# The 6.12 series' static checks, as for the 6.1 series: checkpatch,
# kernel-doc, htmldocs, errcode-check on its tree, its tool the 6.1
# series', make patch and git am.
static_612() {
	local tree=$B/6.12/linux
	skipped 6.12-static && return
	checkpatch_layer
	kerneldoc_layer
	docs_layer
	errcode_check_tree "$tree" "6.12: "
	err_name_check "$tree" "6.12: "
	exports_check patches-6.12 "6.12: "
	# One tool for both kernels, so that the tool layer's host tests
	# cover the 6.12 series' copy too.
	if diff -r "$B/linux/tools/codetag" "$tree/tools/codetag" \
		> "$LOGS/tool-6.12.diff" 2>&1; then
		pass "6.12: tools/codetag is the 6.1 series' tool, file for file"
	else
		fail "6.12: tools/codetag is the 6.1 series' tool, file for file"
		head -20 "$LOGS/tool-6.12.diff" | sed 's/^/#   /'
	fi
	step "6.12: make patch: one diff applies to pristine 6.12 and gives the tree built here" \
		patch-test-6.12 "$H" patch-test
	step "6.12: patches-6.12/: git am applies the series to 6.12, and its last patch gives the tree built here" \
		series-test-6.12 "$H" series-test
}

# Some 6.12 layer runs (LAYERS=kunit runs both series' suites).
any_612() {
	selected 6.12-distro || selected 6.12-arm64 || selected 6.12-static ||
		selected kunit
}

# The 6.12 series' distro kernel in the first lane (its KUnit suites
# among its tests); its arm64 guest and its static checks are in the
# second.
layers_612() {
	local -x KERNEL=6.12
	any_612 || { echo "# 6.12: not in LAYERS"; return; }
	if tree_612_wait; then
		pass "6.12: tree unpacked, patches-6.12/series applied"
	else
		fail "6.12: tree unpacked, patches-6.12/series applied (log: build/logs/tree-6.12.log)"
		tail -25 "$LOGS/tree-6.12.log" | sed 's/^/#   /'
		return
	fi
	if selected kunit && ! selected 6.12-distro; then
		local B=$ROOT/build/6.12 LOGS=$ROOT/build/6.12/logs KLABEL="6.12 "
		mkdir -p "$LOGS"
		kunit_layer 6.12-distro distro
	fi
	distro_612
}

# Build the sources in directory $1 as modules of the guest kernel, log in $2.
build_modules() {
	make -C "$B/linux" O="$B/linux/out-guest" CC="ccache gcc" M="$1" \
		modules > "$2" 2>&1
}

# ERR() refuses kernel-internal codes at build time: this must not build.
# And a module that is not GPL must be able to allocate, and the
# allocation headers must not include fault injection or allocation
# contexts: these must build.
compile_fail_layer() {
	local dir=$B/compile-fail log=$LOGS/compile-fail.log
	skipped compile-fail && return
	rm -rf "$B/compile-pass" "$B/compile-headers"
	mkdir -p "$B/compile-pass" "$B/compile-headers"
	cp "$HARNESS"/compile-pass/* "$B/compile-pass/"
	if build_modules "$B/compile-pass" "$LOGS/compile-pass.log"; then
		pass "modules that are not GPL build with kmalloc, pages, vmalloc, ERR() and errname()"
	else
		fail "modules that are not GPL build with kmalloc, pages, vmalloc, ERR() and errname() (log: build/logs/compile-pass.log)"
		grep -E "ERROR|error:" "$LOGS/compile-pass.log" | head -10 | sed 's/^/#   /'
	fi
	# A module of its own, so that each check fails for its own reason.
	mv "$B/compile-pass/alloc_headers.c" "$B/compile-headers/"
	echo "obj-m += alloc_headers.o" > "$B/compile-headers/Kbuild"
	if build_modules "$B/compile-headers" "$LOGS/compile-headers.log"; then
		pass "<linux/gfp.h>, <linux/slab.h>, <linux/vmalloc.h> and <linux/percpu.h> include no fault injection and no allocation contexts"
	else
		fail "the allocation headers include fault injection or allocation contexts (log: build/logs/compile-headers.log)"
		grep -E "error" "$LOGS/compile-headers.log" | head -5 | sed 's/^/#   /'
	fi
	# Also alone: a redefined macro is only a warning, so any warning
	# fails it.
	rm -rf "$B/compile-own-err"
	mkdir -p "$B/compile-own-err"
	mv "$B/compile-pass/own_err.c" "$B/compile-own-err/"
	echo "obj-m += own_err.o" > "$B/compile-own-err/Kbuild"
	if build_modules "$B/compile-own-err" "$LOGS/compile-own-err.log" &&
	   ! grep -q "warning:" "$LOGS/compile-own-err.log"; then
		pass "a module with an ERR() of its own builds without a warning beside invalf()"
	else
		fail "a module with an ERR() of its own builds without a warning beside invalf() (log: build/logs/compile-own-err.log)"
		grep -E "warning:|error:" "$LOGS/compile-own-err.log" | head -5 | sed 's/^/#   /'
	fi
	rm -rf "$dir"
	mkdir -p "$dir"
	cp "$HARNESS"/compile-fail/* "$dir/"
	if build_modules "$dir" "$log"; then
		fail "ERR(ERESTARTSYS) builds, but must not"
	elif grep -q "ERR() takes a standard errno" "$log"; then
		pass "ERR(ERESTARTSYS) is refused at build time"
	else
		fail "ERR(ERESTARTSYS) fails to build, but not with ERR()'s message (log: ${log#$ROOT/})"
		tail -10 "$log" | sed 's/^/#   /'
	fi
}

# The ok/not ok lines of a test program on the host, as checks named $1.
host_results() {
	local line
	while IFS= read -r line; do
		case $line in
		"ok - "*) pass "$1: ${line#ok - }" ;;
		"not ok - "*) fail "$1: ${line#not ok - }" ;;
		*) echo "#   $line" ;;
		esac
	done
}

# tools/codetag on the host, built and installed with its own Makefile
# (codetag-plot.py beside codetag, where "plot" finds it): its parsers and
# its ranking of growth on recorded and malformed files (tool/test-sites.c,
# under valgrind), then its commands on them (tool/run.sh), the
# documentation's examples included.
tool_layer() {
	local src=$B/linux/tools/codetag out=$B/tool-host log=$LOGS/tool.log
	skipped tool && return
	rm -rf "$out"
	mkdir -p "$out"
	if ! make -C "$src" O="$out" install DESTDIR="$out/inst" prefix=/usr \
		> "$log" 2>&1; then
		fail "tools/codetag builds (log: ${log#$ROOT/})"
		tail -20 "$log" | sed 's/^/#   /'
		return
	elif grep -q "warning:" "$log"; then
		fail "tools/codetag builds without warnings"
		grep "warning:" "$log" | head -10 | sed 's/^/#   /'
	else
		pass "tools/codetag builds without warnings"
	fi
	if ! gcc -O2 -g -Wall -Wextra -Wno-unused-parameter -D_GNU_SOURCE \
		-I "$src" -o "$out/test-sites" "$HARNESS/tool/test-sites.c" \
		"$src/sites.c" -lm >> "$log" 2>&1; then
		fail "tool: the unit tests build (log: ${log#$ROOT/})"
		return
	fi
	valgrind -q --error-exitcode=99 --leak-check=full \
		--errors-for-leak-kinds=definite \
		"$out/test-sites" "$HARNESS/tool/data" > "$out/unit.out" 2>&1
	local rc=$?
	host_results tool < "$out/unit.out"
	if [ $rc -eq 99 ]; then
		fail "tool: valgrind finds no memory errors or leaks in the parsers"
	else
		pass "tool: valgrind finds no memory errors or leaks in the parsers"
	fi
	host_results tool < <("$HARNESS/tool/run.sh" \
		"$out/inst/usr/bin/codetag" "$B/linux" "$out/work" 2>&1)
	splats_filter_checks
	results_counted_check
}

# pass() and fail() count in this shell's variables, so results read at
# the end of a pipeline, in a subshell, would print and count nothing: a
# failing test would leave "make check" passing. Results are read from
# files or from process substitution instead; this keeps it so.
results_counted_check() {
	local what="check.sh: no results are read in a pipeline's subshell"
	local piped

	piped=$(grep -Pzo '(?<!\|)\|(?!\|)[ \t]*(\\?\n[ \t]*)?[a-z_]*results\b' \
		"$HARNESS/check.sh" | tr '\0' '\n')
	if [ -n "$piped" ]; then
		fail "$what"
		printf '%s\n' "$piped" | sed 's/^/#   /'
	else
		pass "$what"
	fi
}

# The splat filter both the guest and the host read logs with
# (guest/tests/splats.awk), on a console of a guest whose check names
# mention KASAN and a WARNING: a report is one whatever its kind, a TAP
# line never is, and an allocation failure's stack passes only where
# faults are injected on purpose.
splats_filter_checks() {
	local awk=$HARNESS/guest/tests/splats.awk in=$B/splats-console.txt

	cat > "$in" <<-'EOF'
	ok - 100 load/unload cycles all succeed under KASAN and lockdep
	not ok - no WARNING: in the log
	# the first KASAN report, if any
	[   41.512034] BUG: KASAN: slab-use-after-free in codetag_test_leak+0x1c/0x40
	[   42.100100] KASAN: null-ptr-deref in range [0x0000000000000010-0x0000000000000017]
	[   50.123456] kworker/0:1: page allocation failure: order:0, mode:0x0(), nodemask=(null)
	[   50.123499] Call Trace:
	EOF
	sed -i 's/\\r$/\r/' "$in"
	local got
	got=$(awk -v allowed=0 -f "$awk" "$in" | cut -c16-)
	if [ "$got" = "BUG: KASAN: slab-use-after-free in codetag_test_leak+0x1c/0x40
KASAN: null-ptr-deref in range [0x0000000000000010-0x0000000000000017]
Call Trace:" ]; then
		pass "splats.awk: reports are splats, the guest's TAP lines are not"
	else
		fail "splats.awk: reports are splats, the guest's TAP lines are not"
		printf '%s\n' "$got" | sed 's/^/#   /'
	fi
	got=$(awk -v allowed=1 -f "$awk" "$in" | grep -c "Call Trace")
	if [ "$got" = 0 ]; then
		pass "splats.awk: an injected allocation failure's stack is allowed"
	else
		fail "splats.awk: an injected allocation failure's stack is allowed"
	fi
}

# The 6.12 tree is unpacked by prebuild, and the 6.12 layers of both
# lanes wait for it: tree_612_done RESULT tells them, tree_612_wait waits
# and returns 0 if the tree is there.
TREE_612_MARK=$LOGS/tree-6.12.state
tree_612_done() { echo "$1" > "$TREE_612_MARK"; }
tree_612_wait() {
	while [ ! -s "$TREE_612_MARK" ]; do
		sleep 10
	done
	[ "$(cat "$TREE_612_MARK")" = ok ] || return 1
	hold_tree 4 "$ROOT/build/6.12/linux"
}

# hold_tree FD TREE: TREE's lock held shared on descriptor FD until make
# check ends, so that no other clone gives the tree another series
# between two harness commands (harness.sh's tree_select()).
hold_tree() {
	eval "exec $1< \"\$2/../.codetag-lock\"" && flock -s "$1"
}

# The later layers' kernels and images, built in the background from the
# start: a boot keeps one core busy (TCG runs both vCPUs in one thread)
# and a build both, so the next flavour's build fills the core a boot
# leaves idle. Each layer's own steps wait for it (harness.sh lets one
# command at a time write a flavour) and report what it did. The distro
# image is made afresh for each boot, its Debian root filesystem once.
# The 6.12 tree is unpacked first, for the 6.12 layers of both lanes, and
# the 6.12 distro kernel built last, for the first lane's 6.12 layer.
prebuild() {
	if ! any_612; then
		tree_612_done skipped
	elif KERNEL=6.12 "$H" tree > "$LOGS/tree-6.12.log" 2>&1; then
		tree_612_done ok
	else
		tree_612_done failed
	fi
	{ left_out distro && left_out soak; } ||
		{ "$H" kernel distro && "$H" rootfs; }
	left_out debug || { "$H" kernel debug && "$H" initramfs debug; }
	left_out 6.12-distro || [ "$(cat "$TREE_612_MARK")" != ok ] ||
		KERNEL=6.12 "$H" kernel distro
}

# The 6.12 series' guest tests on arm64, whose system call return
# converts ERR() codes itself (invoke_syscall()), in the arm64 lane once
# the background build has unpacked the 6.12 tree.
arm64_612_layer() {
	local -x KERNEL=6.12
	local B=$ROOT/build/6.12 LOGS=$ROOT/build/6.12/logs KLABEL="6.12 "
	skipped 6.12-arm64 && return
	if ! tree_612_wait; then
		fail "6.12 arm64: the 6.12 tree is there"
		return
	fi
	mkdir -p "$LOGS"
	boot_612 arm64
}

# The 6.12 series' static checks, in the first lane before the 6.12
# distro kernel's boots: the second lane's boots take longer than the
# first's, and after a change of series the first lane would otherwise
# wait there for the 6.12 distro kernel's build.
static_612_layer() {
	local -x KERNEL=6.12
	skipped 6.12-static && return
	tree_612_wait || return
	static_612
}

# The arm64 layers, the x86-64 debug kernel's and the soak, in a lane of
# their own beside the others: TCG runs a guest's vCPUs in one host
# thread, so while one guest boots on one core, another boots on the
# other. Their checks are written to a file and reported after the first
# lane's. KASAN, UBSAN and lockdep run every guest test on x86-64
# (debug); the code the two architectures do not share is run by the
# arm64 guest and its KUnit suites.
arm64_lane() {
	timed arm64 guest_layer arm64
	timed debug guest_layer debug
	timed "6.12 arm64" arm64_612_layer
	timed soak soak_layer
}

# The table of times: every kernel build and boot image, every boot,
# every host check of more than a few seconds, and each layer's wall
# time (its builds and boots included; the two lanes and the background
# builds run side by side, so the rows add up to more than the run).
times_table() {
	local kind title
	[ -f "$CODETAG_TIMES" ] || return
	for kind in build boot host layer; do
		case $kind in
		build)	title="builds (kernels, boot images, trees)" ;;
		boot)	title="boots" ;;
		host)	title="host checks of 10 s or more" ;;
		layer)	title="layers (wall time, builds and boots included)" ;;
		esac
		awk -F'\t' -v k="$kind" -v t="$title" '
		$1 == k && (k != "host" || $3 >= 10) {
			if (!n++) printf "# %s:\n", t
			printf "#   %6d s  %s\n", $3, $2; s += $3
		}
		END { if (n) printf "#   %6d s  in all\n", s }' "$CODETAG_TIMES"
	done
}

echo "# codetag: make check ($(date -u '+%F %T') UTC)${LAYERS:+, LAYERS=\"$LAYERS\"}"
start=$(date +%s)
rm -f "$CODETAG_TIMES" "$TREE_612_MARK"
step "host packages installed" deps "$H" deps &&
step "6.1 tree unpacked, patches/series applied, files linked" tree "$H" tree &&
hold_tree 5 "$ROOT/build/linux" &&
{
	prebuild > "$LOGS/prebuild.log" 2>&1 &
	prebuilder=$!
	arm64_lane > "$LOGS/arm64-lane.out" 2>&1 &
	arm64_laner=$!
	timed tool tool_layer
	selected kunit && ! selected guest && timed kunit kunit_layer guest guest
	timed guest guest_layer guest
	timed W=1 w1_layer
	timed compile-fail compile_fail_layer
	timed distro guest_layer distro
	skipped static ||
		timed "static checks" eval "checkpatch_layer; kerneldoc_layer; docs_layer; errcode_check_layer"
	skipped patch ||
		timed "make patch" step "make patch: one diff applies to pristine 6.1 and gives the tree built here" \
			patch-test "$H" patch-test
	skipped series ||
		timed "series" step "patches/: git am applies the series to 6.1, and its last patch gives the tree built here" \
			series-test "$H" series-test
	timed "6.12 static checks" static_612_layer
	timed 6.12 layers_612
	wait $prebuilder
	wait $arm64_laner
	echo "# arm64, debug and soak (run beside the layers above)"
	cat "$LOGS/arm64-lane.out"
	PASS=$((PASS + $(grep -c '^ok - ' "$LOGS/arm64-lane.out")))
	FAIL=$((FAIL + $(grep -c '^not ok - ' "$LOGS/arm64-lane.out")))
}
# Where the time went, together at the end, where a truncated log
# still shows it.
times_table
echo "# wall time: $(( $(date +%s) - start )) s"
[ -n "$LAYERS" ] &&
	echo "# LAYERS=\"$LAYERS\": the other layers did not run"
echo "$PASS passed, $FAIL failed"
[ $FAIL -eq 0 ]
