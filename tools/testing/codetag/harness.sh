#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The codetag harness: turns this repository into a Linux 6.1 tree, builds
# the kernels, the test modules and the initramfs, and boots them in QEMU.
#
#   harness.sh deps                 install missing Debian packages (root)
#   harness.sh tree                 unpack 6.1 and apply patches/series,
#                                   again whenever the series changes
#   harness.sh kernel FLAVOR        configure and build FLAVOR (guest, debug,
#                                   nopro: guest without profiling or fault
#                                   points, nofault: without fault points,
#                                   noalloc: without allocation profiling,
#                                   distro: Debian's own configuration,
#                                   distro-debug: that with debug.config,
#                                   distro-nopro: distro without profiling
#                                   or fault points, distro-up612:
#                                   upstream 6.12 with its profiling on
#                                   Debian's 6.12 configuration, both
#                                   for make bench;
#                                   arm64, arm64-debug: guest and debug
#                                   for arm64 (make check boots the
#                                   first), arm64-swtags and
#                                   arm64-hwtags: arm64 with tag-based
#                                   KASAN, software or MTE; arm64-nopro,
#                                   arm64-nofault: for make bench)
#   harness.sh initramfs FLAVOR     test modules + busybox initramfs (the
#                                   distro flavour: a Debian root image)
#   harness.sh rootfs               Debian 12 root filesystem (mmdebstrap)
#   harness.sh image FLAVOR         that root image alone
#   harness.sh warnings FLAVOR      FLAVOR's warnings, each also in 6.1 alone
#   harness.sh boot FLAVOR MODE     boot in QEMU; MODE is test (the
#                                   KUnit suites too, where the kernel
#                                   has them), kunit (those alone), offboot
#                                   (tests of a boot with profiling off),
#                                   never (with it off for good),
#                                   soak (CODETAG_SOAK_SECONDS of stress on
#                                   a distro flavour, 300 by default),
#                                   clock (time_stats against busy waits of
#                                   known lengths, guest time counting
#                                   instructions),
#                                   sweep (codetag sweep on tmpfs and on
#                                   planted bugs), sweep-real (make sweep,
#                                   on a distro flavour),
#                                   bench, workload (make bench's stress-ng
#                                   run on a distro flavour), demo or shell
#   harness.sh kunit [nofault|arm64] KUnit suites under UML, or arm64
#                                   under QEMU, both without fault points
#   harness.sh patch [FILE]         one diff against pristine 6.1
#   harness.sh series               the series as git format-patch writes
#                                   it, cover letter included: build/series/
#   harness.sh series-test          git am applies it, and gives the tree
#   harness.sh series-check         build the guest kernel at every patch,
#                                   KUnit after each patch adding a suite
#   harness.sh devtree, export      edit the series as git commits in
#                                   build/devtree; write patches/ back
#   harness.sh new-files            the files the series creates
#   harness.sh has-kunit FLAVOR     succeeds if FLAVOR carries the KUnit
#                                   suites (make check boots them)
#
# KERNEL=6.12 works on patches-6.12/ and Debian's linux-source-6.12, in
# build/6.12/, for tree, kernel, initramfs, boot, kunit, patch, series,
# series-test, patch-test, devtree and export.
#
# CODETAG_APPEND adds to a guest's kernel command line; in test mode,
# CODETAG_APPEND=codetag.tests=20-alloc-tag.t,50-errcode.t runs only
# those test files. CODETAG_DISK=NAME gives a distro flavour's image and
# boot disks of their own (build/disk-FLAVOR-NAME.img), for a boot beside
# another of the same flavour.
#
# Everything generated lives in build/ (git-ignored); the compiler cache
# lives outside it so that "rm -rf build" still rebuilds quickly.

set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
HARNESS=$ROOT/tools/testing/codetag
C=$HARNESS/configs

# KERNEL=6.12 works on the second series, patches-6.12/, applied to
# Debian's linux-source-6.12: everything it generates goes to build/6.12/,
# so that each kernel's trees, modules and boot images stay apart. The
# Debian root filesystem is shared.
KERNEL=${KERNEL:-6.1}
case $KERNEL in
6.1)	B=$ROOT/build
	PATCHES=$ROOT/patches ;;
6.12)	B=$ROOT/build/6.12
	PATCHES=$ROOT/patches-6.12 ;;
*)	printf '[harness] error: KERNEL=%s: 6.1 or 6.12\n' "$KERNEL" >&2
	exit 2 ;;
esac
export KERNEL
SHARED=$ROOT/build
SRC=$B/linux
TARBALL=/usr/src/linux-source-$KERNEL.tar.xz
TARDIR=linux-source-$KERNEL
JOBS=$(nproc)

export CCACHE_DIR=${CODETAG_CCACHE_DIR:-${HOME:-/root}/.cache/codetag-ccache}
# No CCACHE_BASEDIR: ccache would rewrite source paths through our symlinks
# and __FILE__, which code tags record, would stop being tree-relative.
unset CCACHE_BASEDIR
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
# Nor the object tree's directory, which differs from tree to tree (see
# tree_select()): no kernel here has debug information, whose paths are
# the reason ccache hashes it.
export CCACHE_NOHASHDIR=1
CC_WRAP="ccache gcc"

# The architecture of flavor $1: the arm64 flavours are cross-built with
# Debian's gcc-aarch64-linux-gnu and boot on QEMU's "virt" machine.
arch_of() {
	case $1 in
	arm64*)	echo arm64 ;;
	*)	echo x86 ;;
	esac
}

# nm_of PREFIX: GNU nm with gcc's LTO plugin named, for kbuild's NM. Left
# to itself, nm loads every plugin in /usr/lib/bfd-plugins to identify an
# object, LLVMgold among them where LLVM's linker tools are installed (as
# clang-tidy brings them): some 60 ms for each of the thousands of objects
# that kbuild runs nm on (scripts/check-local-export), a third of a build
# whose objects ccache has. gcc's own plugin is all a gcc-built kernel
# needs, and with it named nm loads no other.
nm_of() {
	local plugin
	plugin=$("${1}gcc" -print-file-name=liblto_plugin.so 2>/dev/null)
	case $plugin in
	/*)	echo "${1}nm --plugin $plugin" ;;
	*)	echo "${1}nm" ;;
	esac
}

# kmake FLAVOR MAKE-ARGUMENTS...: make for flavor's architecture.
kmake() {
	local flavor=$1
	shift
	case $(arch_of "$flavor") in
	arm64)	make ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- \
			CC="ccache aarch64-linux-gnu-gcc" \
			NM="$(nm_of aarch64-linux-gnu-)" "$@" ;;
	*)	make CC="$CC_WRAP" NM="$(nm_of "")" "$@" ;;
	esac
}

# The C compiler of flavor $1's userspace, for the guest's own programs.
user_cc() {
	case $(arch_of "$1") in
	arm64)	echo aarch64-linux-gnu-gcc ;;
	*)	echo gcc ;;
	esac
}

log() { printf '[harness] %s\n' "$*" >&2; }
die() { printf '[harness] error: %s\n' "$*" >&2; exit 1; }

# Debian packages the build rests on; installed only when missing.
PACKAGES="qemu-system-x86 busybox-static flex bison bc cpio
	  qemu-system-arm gcc-aarch64-linux-gnu libc6-dev-arm64-cross
	  libelf-dev libssl-dev ccache make gcc python3 perl xz-utils git
	  python3-matplotlib strace valgrind
	  python3-sphinx python3-sphinx-rtd-theme mmdebstrap
	  e2fsprogs util-linux kmod libc6-dev coccinelle"

# The kernel sources and configurations the series are made for, at the
# version each applies to: the security archive moves to a new stable
# release every few weeks, and a series applies with "git am" to the one
# it was rebased on. Installed, or replaced, when another version is there.
PINNED="linux-source-6.1=6.1.192-3 linux-config-6.1=6.1.192-3
	linux-source-6.12=6.12.118-1~deb12u1
	linux-config-6.12=6.12.118-1~deb12u1"

cmd_deps() {
	local missing=() p want=$PACKAGES arm64=0
	for p in $want; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q "install ok installed" || missing+=("$p")
	done
	for p in $PINNED; do
		[ "$(dpkg-query -W -f='${Status} ${Version}' "${p%%=*}" 2>/dev/null)" = \
		  "install ok installed ${p#*=}" ] || missing+=("$p")
	done
	# The arm64 guests' userspace comes from Debian's arm64 packages.
	dpkg --print-foreign-architectures | grep -qx arm64 || arm64=1
	[ ${#missing[@]} -eq 0 ] && [ $arm64 -eq 0 ] && return 0
	[ "$(id -u)" -eq 0 ] ||
		die "missing packages or dpkg's arm64 architecture (run as root): ${missing[*]}"
	if [ $arm64 -eq 1 ]; then
		log "adding dpkg's arm64 architecture"
		dpkg --add-architecture arm64
	fi
	apt-get update -qq >&2
	[ ${#missing[@]} -eq 0 ] && return 0
	log "installing ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends --allow-downgrades "${missing[@]}" >&2
}

# The patches of patches/series, in order.
series_patches() {
	sed -e 's/#.*//' -e '/^$/d' -e "s|^|$PATCHES/|" "$PATCHES/series"
}

series_hash() {
	cat "$PATCHES/series" $(sed -e 's/#.*//' -e '/^$/d' \
		-e "s|^|$PATCHES/|" "$PATCHES/series") | sha1sum |
		cut -d' ' -f1
}

# Unpack a pristine 6.1 tree into $1 (preserving mtimes, so rebuilds of a
# re-extracted tree stay incremental). The object trees inside it, or
# inside tree $2 if given (see out_dir()), move to the new tree.
unpack_pristine() {
	local dest=$1 from=${2:-$1} tmp o
	mkdir -p "$(dirname "$dest")"
	tmp=$(mktemp -d "$(dirname "$dest")/unpack.XXXXXX")
	tar -C "$tmp" -xJf "$TARBALL"
	for o in "$from"/out-*; do
		[ -d "$o" ] && mv "$o" "$tmp/$TARDIR/"
	done
	rm -rf "$dest"
	mv "$tmp/$TARDIR" "$dest"
	rmdir "$tmp"
}

apply_series() {
	local tree=$1 p
	for p in $(series_patches); do
		patch -d "$tree" -p1 -s --no-backup-if-mismatch < "$p" ||
			die "patch ${p##*/} does not apply"
	done
}

# The kernel trees, with the flavours' object trees inside them, live in
# $TREES, outside the clone, as the compiler cache does: a tree is kept
# with the series it was last given, so that a fresh clone of a series
# built before (CI's, say) finds its kernels built and kbuild has little
# to do. build/linux (build/6.12/linux) links to the clone's tree.
#
# A clone takes the tree that holds its series. Failing that, it gives
# its series to a tree no one is using, its own first, then the most
# recently used (only the objects that the change of series reaches are
# rebuilt: see update_tree()), or else to a tree of its own. A tree is
# in use while a harness command or a make check holds its lock shared
# (tree_hold()); it is given a series under the lock held exclusively.
# Beyond the two most recently used trees of a kernel, trees no one uses
# are removed.
TREES=${CODETAG_TREES:-${HOME:-/root}/.cache/codetag-trees}

# This kernel's trees, the most recently used first.
trees_by_use() {
	ls -t "$TREES/$KERNEL".[0-9]*/.codetag-used 2>/dev/null |
		sed 's|/\.codetag-used$||'
}

# tree_hold: hold the lock of the clone's tree shared (on descriptor 8)
# until this command ends.
tree_hold() {
	[ -e "$SRC/../.codetag-lock" ] || return 0
	exec 8< "$SRC/../.codetag-lock"
	flock -s 8
}

# tree_select WANT: link $SRC to a tree for series hash WANT, its lock held
# on descriptor 8: shared if the tree holds that series, exclusive if it
# must be given it. Sets TREE_DIR (the tree is TREE_DIR/linux).
tree_select() {
	local want=$1 d n=0 kept=0
	mkdir -p "$TREES" "$B"
	exec 7> "$TREES/$KERNEL.lock"
	flock 7
	# A tree from before the trees moved out of the clones: adopt it.
	if [ -d "$SRC" ] && [ ! -L "$SRC" ]; then
		while [ -e "$TREES/$KERNEL.$n" ]; do n=$((n + 1)); done
		mkdir "$TREES/$KERNEL.$n"
		mv "$SRC" "$TREES/$KERNEL.$n/linux"
		touch "$TREES/$KERNEL.$n/.codetag-used" "$TREES/$KERNEL.$n/.codetag-lock"
		ln -s "$TREES/$KERNEL.$n/linux" "$SRC"
	fi
	for d in $(trees_by_use); do
		[ -e "$d/.codetag-lock" ] || touch "$d/.codetag-lock"
	done
	# The tree with the most kernels built, as rebuilding what a change
	# of series reaches costs less than building a kernel: one that holds
	# the series before one that must be given it, the most recently used
	# first. A tree another clone uses can only be taken as it is.
	TREE_DIR=
	for d in $(trees_by_use); do
		n=$(ls -d "$d"/linux/out-* 2>/dev/null | wc -l)
		if [ "$(cat "$d/linux/.codetag-series" 2>/dev/null)" = "$want" ]; then
			echo "$((2 * n + 1)) $d"
		else
			echo "$((2 * n)) $d"
		fi
	done | sort -s -k1,1nr > "$TREES/$KERNEL.order"
	while read -r n d; do
		exec 8< "$d/.codetag-lock"
		if [ $((n % 2)) = 1 ]; then
			flock -s 8
		elif flock -n -x 8; then
			rm -f "$d/linux/.codetag-series"
		else
			continue
		fi
		TREE_DIR=$d
		break
	done < "$TREES/$KERNEL.order"
	rm -f "$TREES/$KERNEL.order"
	if [ -z "$TREE_DIR" ]; then
		n=0
		while [ -e "$TREES/$KERNEL.$n" ]; do n=$((n + 1)); done
		TREE_DIR=$TREES/$KERNEL.$n
		mkdir "$TREE_DIR"
		touch "$TREE_DIR/.codetag-lock"
		exec 8< "$TREE_DIR/.codetag-lock"
		flock -x 8
	fi
	touch "$TREE_DIR/.codetag-used"
	for d in $(trees_by_use); do
		[ "$d" = "$TREE_DIR" ] && continue
		kept=$((kept + 1))
		[ $kept -gt 1 ] || continue
		exec 6< "$d/.codetag-lock"
		flock -n -x 6 && rm -rf "$d"
		exec 6<&-
	done
	ln -sfn "$TREE_DIR/linux" "$SRC"
	exec 7>&-
}

# update_tree DIR: DIR/linux unpacked afresh with the series applied, the
# object trees kept. A file the series leaves as the tree had it keeps
# its time, so kbuild rebuilds only what the change of series reaches;
# a file the last series changed and this one does not is 6.1's again,
# with 6.1's time, older than its objects: it gets the present time.
update_tree() {
	local new=$1/linux old=$1/old f
	rm -rf "$old"
	if [ -d "$new" ]; then
		mv "$new" "$old"
	fi
	unpack_pristine "$new" "$old"
	apply_series "$new"
	patched_files > "$new/.codetag-files"
	if [ -d "$old" ]; then
		{ cat "$new/.codetag-files"
		  cat "$old/.codetag-files" 2>/dev/null || true; } |
		sort -u | while read -r f; do
			[ -f "$new/$f" ] || continue
			if cmp -s "$old/$f" "$new/$f"; then
				touch -r "$old/$f" "$new/$f"
			else
				touch "$new/$f"
			fi
		done
		rm -rf "$old"
	fi
}

# "harness.sh tree": $SRC links to a tree that has patches/series applied
# (its lock held shared on descriptor 8).
cmd_tree() {
	local want
	want=$(series_hash)
	if [ -L "$SRC" ] &&
	   [ "$(cat "$SRC/.codetag-series" 2>/dev/null)" = "$want" ]; then
		tree_hold
		touch "$SRC/../.codetag-used"
		return 0
	fi
	tree_select "$want"
	[ "$(cat "$TREE_DIR/linux/.codetag-series" 2>/dev/null)" = "$want" ] &&
		return 0
	log "unpacking $TARDIR and applying ${PATCHES#"$ROOT/"}/series in $TREE_DIR"
	update_tree "$TREE_DIR"
	echo "$want" > "$TREE_DIR/linux/.codetag-series"
	flock -s 8
}

# A flavour's object tree, inside the source tree: kbuild then names every
# source file relative to it ("../mm/slub.c"), so no compiler command line
# contains the clone's path and ccache reuses objects that another clone
# of the repository compiled.
out_dir() {
	local bench=
	[ -n "${CODETAG_BENCH:-}" ] && case " $KUNIT_FLAVORS " in
		*" $1 "*) bench=-bench ;;
	esac
	echo "$(src_dir "$1")/out-$1$bench"
}

# Upstream Linux 6.12, for make bench's side-by-side columns: Debian's
# linux-source-6.12, unpacked as it is.
UP_TARBALL=/usr/src/linux-source-6.12.tar.xz
UP_SRC=$SHARED/linux-6.12

# The source tree of flavor $1.
src_dir() {
	case $1 in
	*up612*) echo "$UP_SRC" ;;
	*)	echo "$SRC" ;;
	esac
}

# Unpack upstream's tree once; its object trees stay across runs.
up_tree() {
	[ -f "$UP_SRC/.codetag-unpacked" ] && return 0
	[ -f "$UP_TARBALL" ] || die "$UP_TARBALL missing: harness.sh deps"
	log "unpacking linux-source-6.12"
	rm -rf "$UP_SRC" "$SHARED/linux-source-6.12"
	tar -C "$SHARED" -xJf "$UP_TARBALL"
	mv "$SHARED/linux-source-6.12" "$UP_SRC"
	touch "$UP_SRC/.codetag-unpacked"
}

# The applications' fragment: the series of each kernel has its own options.
case $KERNEL in
6.1)	CT=$C/codetag.config ;;
*)	CT=$C/codetag-$KERNEL.config ;;
esac

# The small guests' base: the architecture's fragment, then the common one.
X86="$C/x86.config $C/guest.config"
ARM64="$C/arm64.config $C/guest.config"

# The KUnit suites, built into the kernels that make check boots (6.1:
# guest, arm64, distro, debug; 6.12: distro) instead of kernels of their
# own. make bench (CODETAG_BENCH=1) measures those flavours without them,
# in object trees of their own (out_dir()), so that no figure counts them.
case $KERNEL in
6.1)	KUNIT_FLAVORS="guest arm64 distro debug"
	KU=$C/kunit.config ;;
*)	KUNIT_FLAVORS="distro"
	KU=$C/kunit-$KERNEL.config ;;
esac

# has_kunit FLAVOR: FLAVOR's kernel carries the KUnit suites.
has_kunit() {
	[ -z "${CODETAG_BENCH:-}" ] || return 1
	case " $KUNIT_FLAVORS " in *" $1 "*) return 0 ;; esac
	return 1
}

fragments() {
	local ku=
	has_kunit "$1" && ku=$KU
	case $1 in
	guest)	echo "$X86 $CT $ku" ;;
	debug)	echo "$X86 $CT $ku $C/debug.config" ;;
	nopro)	echo "$X86 $CT $C/no-profiling.config" ;;
	nofault) echo "$X86 $CT $C/no-fault.config" ;;
	noalloc) echo "$X86 $CT $C/no-alloc-profiling.config" ;;
	arm64)	echo "$ARM64 $CT $ku" ;;
	arm64-debug) echo "$ARM64 $CT $C/debug.config" ;;
	arm64-swtags) echo "$ARM64 $CT $C/kasan-sw-tags.config" ;;
	arm64-hwtags) echo "$ARM64 $CT $C/kasan-hw-tags.config" ;;
	arm64-nopro) echo "$ARM64 $CT $C/no-profiling.config" ;;
	arm64-nofault) echo "$ARM64 $CT $C/no-fault.config" ;;
	arm64-up612-nopro) echo "$ARM64 $C/upstream-no-profiling.config" ;;
	arm64-up612) echo "$ARM64 $C/upstream-profiling.config" ;;
	distro)	echo "$C/distro.config $CT $ku" ;;
	distro-debug) echo "$C/distro.config $CT $C/debug.config" ;;
	distro-nopro) echo "$C/distro.config $CT $C/no-profiling.config" ;;
	distro-noalloc) echo "$C/distro.config $CT $C/no-alloc-profiling.config" ;;
	distro-up612) echo "$C/distro.config $C/upstream-profiling.config" ;;
	up612-nopro) echo "$X86 $C/upstream-no-profiling.config" ;;
	up612)	echo "$X86 $C/upstream-profiling.config" ;;
	*)	die "unknown kernel flavor '$1'" ;;
	esac
}

# Debian's own configuration for distro flavour $1: upstream 6.12's
# (distro-up612, for make bench) is Debian's 6.12 one whatever KERNEL is.
debian_config() {
	case $1 in
	*up612*) echo /usr/src/linux-config-6.12/config.amd64_none_amd64.xz ;;
	*)	echo "/usr/src/linux-config-$KERNEL/config.amd64_none_amd64.xz" ;;
	esac
}

# Modules of Debian's configuration that the distro guest uses; every other
# "=m" is switched off (what a kept module needs, Kconfig turns back on).
DISTRO_MODULES="XFS_FS BTRFS_FS BLK_DEV_LOOP"

# The base configuration of flavor $1 in objtree $2: tinyconfig for the
# small guest, Debian's configuration trimmed to the guest for distro.
base_config() {
	local flavor=$1 out=$2 src=$3 keep m
	case $flavor in
	distro*)
		keep=$(for m in $DISTRO_MODULES; do printf -- '-e /^CONFIG_%s=m$/b ' "$m"; done)
		xzcat "$(debian_config "$flavor")" |
			sed $keep -e 's/^\(CONFIG_[A-Za-z0-9_]*\)=m$/# \1 is not set/' \
			> "$out/.config"
		kmake "$flavor" -s -C "$src" O="$out" olddefconfig >&2 ;;
	*)	kmake "$flavor" -s -C "$src" O="$out" tinyconfig >&2 ;;
	esac
}

# Configure $2 (an objtree) from the fragments of flavor $1 for source $3.
configure() {
	local flavor=$1 out=$2 src=$3 frags want line sym
	frags=$(fragments "$flavor")
	# Our Kconfig too: a changed select or default changes the result.
	want=$( (cat $frags
		 [ -f "$SRC/lib/codetag/Kconfig" ] && cat "$SRC/lib/codetag/Kconfig"
		 case $flavor in distro*) xzcat "$(debian_config "$flavor")"; echo "$DISTRO_MODULES" ;; esac) |
		sha1sum | cut -d' ' -f1)
	mkdir -p "$out"
	if [ -f "$out/.config" ] && [ -f "$out/.codetag-frags" ] &&
	   [ "$(cat "$out/.codetag-frags")" = "$want" ]; then
		return 0
	fi
	log "configuring $flavor kernel ($(echo $frags | xargs -n1 basename | xargs))"
	base_config "$flavor" "$out" "$src"
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" \
		$frags >/dev/null
	kmake "$flavor" -s -C "$src" O="$out" olddefconfig >&2
	# merge_config.sh only warns; a fragment line that did not stick is a
	# broken configuration, so refuse it here.
	# A later fragment overrides an earlier one: check the last word.
	for line in $(cat $frags | grep -E '^(CONFIG_[A-Z0-9_]+=|# CONFIG_)' |
		      sed 's/^# \(CONFIG_[A-Z0-9_]*\) is not set/\1=n/' |
		      awk -F= '{ v[$1] = $0 } END { for (k in v) print v[k] }'); do
		sym=${line%%=*}
		case $line in
		*=n) ! grep -q "^$sym=" "$out/.config" ||
			die "$flavor: $sym should be off" ;;
		*) grep -qx "$line" "$out/.config" ||
			die "$flavor: $line did not stick ($(grep "^$sym=" "$out/.config" || echo unset))" ;;
		esac
	done
	echo "$want" > "$out/.codetag-frags"
}

cmd_kernel() {
	local flavor=$1 out src
	src=$(src_dir "$flavor")
	[ "$src" = "$UP_SRC" ] && up_tree
	out=$(out_dir "$flavor")
	configure "$flavor" "$out" "$src"
	log "building $flavor kernel in ${out#$ROOT/}"
	if ! kmake "$flavor" -s -C "$src" O="$out" -j"$JOBS" all \
		> "$out/.codetag-build.log" 2>&1; then
		cat "$out/.codetag-build.log" >&2
		die "the $flavor kernel does not build"
	fi
	cat "$out/.codetag-build.log" >&2
	# Remember every file that was compiled with a warning, for
	# "harness.sh warnings": a later build that recompiles nothing prints
	# none.
	touch "$out/.codetag-warned"
	warned_units < "$out/.codetag-build.log" |
		sort -u - "$out/.codetag-warned" > "$out/.codetag-warned.new"
	mv "$out/.codetag-warned.new" "$out/.codetag-warned"
}

# The compilation units of gcc's warnings in a build log, as source paths:
# the .c file itself, or the .c file that included the header warned about.
warned_units() {
	awk -v src="$SRC/" '
	function path(s) {
		sub(/^(In file included| +) from /, "", s)
		sub(/:[0-9]+[:,]?$/, "", s)
		sub(/^\.\.\//, "", s)
		if (index(s, src) == 1)
			s = substr(s, length(src) + 1)
		return s
	}
	/^In file included from / || /^ +from / { p = path($0); if (p ~ /\.c$/) unit = p; next }
	/^[^ ]+\.c: In function / { unit = $1; sub(/:$/, "", unit); unit = path(unit); next }
	/:[0-9]+:[0-9]+: warning: / {
		f = $0; sub(/:[0-9]+:[0-9]+: warning: .*/, "", f); f = path(f)
		print (f ~ /\.c$/) ? f : (unit != "" ? unit : f)
	}'
}

# warnings_of TREE OBJTREE UNIT: UNIT compiled again in TREE, its warnings
# as "file: message" lines without line numbers, which our patches shift.
warnings_of() {
	local tree=$1 obj=$2 unit=$3
	rm -f "$obj/${unit%.c}.o"
	make -s -C "$tree" O="$obj" CC="$CC_WRAP" "${unit%.c}.o" 2>&1 |
		sed -n 's/^\(.*\):[0-9]*:[0-9]*: warning: \(.*\)/\1: \2/p' |
		sed -e "s|^$tree/||" -e 's|^\.\./||' | sort -u
}

# No new warnings: every file that the FLAVOR kernel compiled with a
# warning is compiled again in a pristine tree (6.1 or 6.12) with the same
# configuration, where it must give the same warnings. Prints each
# warning and where it comes from.
cmd_warnings() {
	local flavor=$1 out tree=$B/pristine-warnings pout unit new=0 ours theirs
	out=$(out_dir "$flavor")
	pout=$tree/out-$flavor
	[ -f "$out/.codetag-build.log" ] || die "the $flavor kernel is not built"
	if [ ! -s "$out/.codetag-warned" ]; then
		log "no file of the $flavor kernel was compiled with a warning"
		return 0
	fi
	unpack_pristine "$tree"
	rm -rf "$pout"
	mkdir -p "$pout"
	cp "$out/.config" "$pout/.config"
	make -s -C "$tree" O="$pout" CC="$CC_WRAP" olddefconfig >&2
	make -s -C "$tree" O="$pout" CC="$CC_WRAP" -j"$JOBS" prepare >&2
	while read -r unit; do
		unit=${unit#"$SRC/"}
		case $unit in
		*.c) ;;
		*)	echo "new: $unit: a warning outside any compilation unit"
			new=$((new + 1))
			continue ;;
		esac
		ours=$(warnings_of "$SRC" "$out" "$unit")
		theirs=$(warnings_of "$tree" "$pout" "$unit")
		while IFS= read -r line; do
			[ -n "$line" ] || continue
			if printf '%s\n' "$theirs" | grep -qxF -- "$line"; then
				echo "in pristine $KERNEL too: $line"
			else
				echo "new: $line"
				new=$((new + 1))
			fi
		done <<< "$ours"
	done < "$out/.codetag-warned"
	rm -rf "$tree" "$pout"
	[ $new -eq 0 ] || die "$new new warnings in the $flavor kernel"
}

# Build the test modules out of tree against flavor $1.
build_modules() {
	local flavor=$1 out mods
	out=$(out_dir "$flavor")
	mods=$B/modules-$flavor
	mkdir -p "$mods"
	find "$mods" -xtype l -delete
	cp -sf "$HARNESS"/modules/* "$mods/"
	kmake "$flavor" -s -C "$(src_dir "$flavor")" O="$out" M="$mods" \
		-j"$JOBS" modules >&2
}

# The Debian root filesystem as a tarball, from the packages in
# rootfs/packages and the machine's own apt sources; rebuilt only when the
# list or the sources change. Like the compiler cache, a copy is kept
# outside build/ (CODETAG_ROOTFS_CACHE), so that a fresh clone on the same
# machine does not run mmdebstrap again.
ROOTFS_CACHE=${CODETAG_ROOTFS_CACHE:-${HOME:-/root}/.cache/codetag-rootfs}
ROOTFS_SOURCES=/etc/apt/sources.list.d/debian.sources

cmd_rootfs() {
	local list=$HARNESS/rootfs/packages want cached
	want=$(cat "$list" "$ROOTFS_SOURCES" | sha1sum | cut -d' ' -f1)
	cached=$ROOTFS_CACHE/rootfs-$want.tar
	mkdir -p "$B"
	# The distro flavours' images share it: one makes it, the others wait.
	exec 8> "$SHARED/.lock-rootfs"
	flock 8
	if [ -f "$SHARED/rootfs.tar" ] && [ "$(cat "$SHARED/rootfs.tar.list" 2>/dev/null)" = "$want" ]; then
		return 0
	fi
	rm -f "$SHARED/rootfs.tar" "$SHARED/rootfs.tar.list"
	if [ -f "$cached" ]; then
		log "the Debian root filesystem from ${cached#"${HOME:-/root}/"}"
		cp "$cached" "$SHARED/rootfs.tar.tmp"
	else
		log "making the Debian root filesystem (mmdebstrap)"
		mmdebstrap --variant=minbase --format=tar \
			--include="$(sed -e 's/#.*//' -e '/^$/d' "$list" | paste -sd,)" \
			bookworm "$SHARED/rootfs.tar.tmp" - \
			< "$ROOTFS_SOURCES" >&2
		# One tarball kept: an older list's is of no further use.
		mkdir -p "$ROOTFS_CACHE"
		rm -f "$ROOTFS_CACHE"/rootfs-*.tar
		cp "$SHARED/rootfs.tar.tmp" "$cached.tmp" && mv "$cached.tmp" "$cached"
	fi
	mv "$SHARED/rootfs.tar.tmp" "$SHARED/rootfs.tar"
	echo "$want" > "$SHARED/rootfs.tar.list"
}

# The guests' own small programs, static so that any root can run them.
build_helpers() {
	local c
	for c in "$HARNESS"/guest/*.c; do
		gcc -static -O2 -Wall -Wextra -Wno-unused-parameter -Werror \
			-o "$B/$(basename "$c" .c)" "$c"
	done
}

# A distro flavour's root disk: the Debian root filesystem, the kernel's
# modules, the test modules, helpers and tests (the distro-only ones too),
# as an ext4 image; and a swap disk.
# A distro flavour's root (disk) or swap disk. CODETAG_DISK names a set
# of its own, for a boot that runs beside another of the same flavour.
disk_image() {
	echo "$B/$2-$1${CODETAG_DISK:+-$CODETAG_DISK}.img"
}

cmd_image() {
	local flavor=$1 out stage
	out=$(out_dir "$flavor")
	cmd_rootfs
	build_modules "$flavor"
	build_helpers
	stage=$B/root-$flavor
	rm -rf "$stage"
	mkdir -p "$stage"
	tar -C "$stage" -xf "$SHARED/rootfs.tar"
	make -s -C "$(src_dir "$flavor")" O="$out" INSTALL_MOD_PATH="$stage" \
		INSTALL_MOD_STRIP=1 DEPMOD=/sbin/depmod modules_install >&2
	mkdir -p "$stage/tests" "$stage/modules"
	cp "$HARNESS/guest/init" "$stage/codetag-init"
	# Debian's /etc/profile would put its own PATH before busybox's
	# applets, which the tests are written for.
	cp "$HARNESS/guest/profile" "$stage/etc/profile"
	cp "$HARNESS/guest/demo.sh" "$HARNESS/guest/bench.sh" \
		"$HARNESS/guest/workload.sh" "$HARNESS/guest/sweep-real.sh" "$stage/"
	cp "$HARNESS"/guest/tests/* "$HARNESS"/guest/distro-tests/* "$stage/tests/"
	cp "$B/modules-$flavor"/*.ko "$stage/modules/"
	for c in "$HARNESS"/guest/*.c; do
		cp "$B/$(basename "$c" .c)" "$stage/usr/local/bin/"
	done
	build_tool "$flavor" "$stage/usr/local/bin"
	rm -f "$(disk_image "$flavor" disk)"
	mkfs.ext4 -q -F -L root -d "$stage" "$(disk_image "$flavor" disk)" 3G
	rm -rf "$stage"
	rm -f "$(disk_image "$flavor" swap)"
	truncate -s 1G "$(disk_image "$flavor" swap)"
	mkswap -q "$(disk_image "$flavor" swap)"
}

# Debian's arm64 packages that the arm64 guests' userspace comes from,
# unpacked once into build/arm64-root (dpkg's arm64 architecture, which
# "harness.sh deps" adds, lets apt fetch them).
ARM64_DEBS="busybox-static coreutils libc6"

arm64_root() {
	local root=$SHARED/arm64-root debs=$SHARED/arm64-debs d
	[ -f "$root/.codetag-debs" ] &&
		[ "$(cat "$root/.codetag-debs")" = "$ARM64_DEBS" ] && return 0
	log "fetching Debian's arm64 $ARM64_DEBS"
	rm -rf "$root" "$debs"
	mkdir -p "$root" "$debs"
	(cd "$debs" && apt-get download -q -o APT::Sandbox::User=root \
		$(for d in $ARM64_DEBS; do echo "$d:arm64"; done)) >&2 ||
		die "cannot fetch Debian's arm64 packages"
	for d in "$debs"/*.deb; do
		dpkg-deb -x "$d" "$root"
	done
	echo "$ARM64_DEBS" > "$root/.codetag-debs"
}

# The small guest's programs, into $2: busybox (static), GNU sort for
# "sort -hr" (busybox's sort has no -h) and its libc, and ours.
guest_userland() {
	local flavor=$1 stage=$2 c
	case $(arch_of "$flavor") in
	arm64)
		arm64_root
		cp "$SHARED/arm64-root/bin/busybox" "$stage/bin/"
		cp "$SHARED/arm64-root/usr/bin/sort" "$stage/usr/bin/"
		mkdir -p "$stage/lib/aarch64-linux-gnu"
		cp "$SHARED"/arm64-root/lib/aarch64-linux-gnu/{libc.so.6,ld-linux-aarch64.so.1} \
			"$stage/lib/aarch64-linux-gnu/"
		ln -s aarch64-linux-gnu/ld-linux-aarch64.so.1 \
			"$stage/lib/ld-linux-aarch64.so.1" ;;
	*)
		cp /bin/busybox "$stage/bin/"
		cp /usr/bin/sort "$stage/usr/bin/"
		mkdir -p "$stage/lib/x86_64-linux-gnu" "$stage/lib64"
		cp /lib/x86_64-linux-gnu/libc.so.6 "$stage/lib/x86_64-linux-gnu/"
		cp /lib64/ld-linux-x86-64.so.2 "$stage/lib64/" ;;
	esac
	for c in "$HARNESS"/guest/*.c; do
		"$(user_cc "$flavor")" -static -O2 -Wall -Wextra \
			-Wno-unused-parameter -Werror \
			-o "$stage/usr/bin/$(basename "$c" .c)" "$c"
	done
	build_tool "$flavor" "$stage/usr/bin"
}

# The tree's tools/codetag, static, for flavor $1's guest, into $2: built
# with its own Makefile, as a user builds it to copy to a board or phone.
build_tool() {
	local out=$B/tool-$1 cross=
	[ "$(arch_of "$1")" = arm64 ] && cross=aarch64-linux-gnu-
	rm -rf "$out"
	mkdir -p "$out"
	make -s -C "$SRC/tools/codetag" O="$out" CROSS_COMPILE=$cross \
		LDFLAGS=-static >&2
	cp "$out/codetag" "$2/"
}

cmd_initramfs() {
	local flavor=$1 out stage spec f
	case $flavor in
	distro*) cmd_image "$flavor"; return ;;
	esac
	out=$(out_dir "$flavor")
	build_modules "$flavor"
	stage=$B/initramfs-$flavor
	rm -rf "$stage"
	mkdir -p "$stage"/{bin,modules,tests}
	cp "$HARNESS/guest/init" "$stage/init"
	cp "$HARNESS/guest/demo.sh" "$HARNESS/guest/demo-6.12.sh" \
		"$HARNESS/guest/bench.sh" "$stage/"
	cp "$HARNESS"/guest/tests/* "$stage/tests/"
	cp "$B/modules-$flavor"/*.ko "$stage/modules/"
	mkdir -p "$stage/usr/bin" "$stage/etc"
	cp "$HARNESS/guest/profile" "$stage/etc/profile"
	guest_userland "$flavor" "$stage"
	spec=$B/initramfs-$flavor.spec
	{
		echo "dir /dev 0755 0 0"
		echo "nod /dev/console 0600 0 0 c 5 1"
		for f in proc sys tmp root sbin usr usr/sbin; do
			echo "dir /$f 0755 0 0"
		done
		(cd "$stage" && find . -mindepth 1 | sort) | while read -r f; do
			f=${f#.}
			if [ -L "$stage$f" ]; then
				echo "slink $f $(readlink "$stage$f") 0777 0 0"
			elif [ -d "$stage$f" ]; then
				echo "dir $f 0755 0 0"
			else
				echo "file $f $stage$f $(stat -c %a "$stage$f") 0 0"
			fi
		done
	} > "$spec"
	"$out/usr/gen_init_cpio" "$spec" > "$B/initramfs-$flavor.cpio"
}

# Boot flavor $1 in mode $2. Test results go to a second serial port so
# that kernel messages on the console can never interleave with them.
# An 8 MiB ext4 image (metadata_csum, as mke2fs makes them) whose
# superblock no longer matches its checksum: one byte of its last write
# time changed.
make_bad_root() {
	[ -f "$1" ] && return
	rm -f "$1.tmp"
	mkfs.ext4 -q -F -O metadata_csum "$1.tmp" 8M
	# s_wtime, at 0x30 in the superblock, 1024 bytes into the disk.
	printf '\377\377\377\377' |
		dd of="$1.tmp" bs=1 seek=$((1024 + 0x30)) conv=notrunc status=none
	mv "$1.tmp" "$1"
}

cmd_boot() {
	local flavor=$1 mode=$2 out limit append
	out=$(out_dir "$flavor")
	# no_timer_check: the boot-time check that the timer interrupt
	# arrives measures it against a delay loop, which a busy host can
	# stall; a guest then panics ("IO-APIC + timer doesn't work!").
	case $(arch_of "$flavor") in
	arm64)	append="console=ttyAMA0 panic=-1" ;;
	*)	append="console=ttyS0 panic=-1 no_timer_check" ;;
	esac
	append="$append codetag.mode=$mode codetag.flavor=$flavor"
	# A log that holds a whole boot: the tests find a command's messages
	# after the number of lines dmesg had before it (dmesg_mark), which a
	# full ring buffer, dropping its oldest lines, would defeat.
	append="$append log_buf_len=4M"
	# A vCPU is a host thread: a busy host can leave it unscheduled for
	# seconds, which the guest sees as its own CPU stuck. Debian's
	# configuration reports a soft lockup after 20 s and an RCU stall
	# after 21 s; give both two minutes, so that only a kernel that is
	# really stuck is reported.
	case $flavor in
	distro*) append="$append watchdog_thresh=60 rcupdate.rcu_cpu_stall_timeout=120" ;;
	esac
	append="$append ${CODETAG_APPEND:-}"
	local cpus=2 mem=1G extra=() disk=() tlimit=1500
	# KASAN and lockdep make a boot of the tests take about 20 minutes
	# under TCG: a slower host must not make it fail.
	case $flavor in *debug) tlimit=3000 ;; esac
	# The tests patch the kernel's text while the other vCPU runs: every
	# allocation site's static branch when profiling or a memory fault
	# point is switched, a module's jump labels when it loads. With
	# TCG's thread per vCPU, a vCPU now and then runs a stale translation
	# of a site being patched: it dies on an int3 the kernel has already
	# taken out (3 profiling-off boots in about 20, in pte_alloc_one(),
	# kmem_cache_alloc_bulk() and anon_vma_fork()), or spins on the site
	# (a soak: both vCPUs locked up at a static branch in vm_area_dup()).
	# None of it with one thread running the vCPUs in turn (11 boots).
	local tcg=,thread=single
	case $mode in
	test)	limit=${CODETAG_BOOT_TIMEOUT:-$tlimit}
		# Armed at boot, checked and disarmed by 30-dynamic-fault.t.
		append="$append dynamic_fault=\"func alloc_vfsmnt probability 0\""
		;;
	kunit)	# The KUnit suites, before init, their results on the
		# console; an RCU stall reported after two minutes, not
		# after a busy host's 21 s, as the console must be clean.
		limit=${CODETAG_BOOT_TIMEOUT:-$tlimit}
		append="$append kunit.enable=1 rcupdate.rcu_cpu_stall_timeout=120"
		case $KERNEL:$flavor in
		6.1:debug)
			# Only the case that needs its page reference
			# tracepoints: another case plants the stale page
			# reference that MEM_ALLOC_PROFILING_DEBUG reports.
			append="$append kunit.filter_glob=alloc_tag.alloc_tag_test_free_tail_race" ;;
		6.1:arm64)
			# Every suite, on two vCPUs that run at once, each on
			# a host thread of its own: the codetag suite's two
			# writers of one tag's flags must really race. arm64
			# patches a static branch with one instruction, which
			# a vCPU sees whole, old or new, so the stale
			# translations that make x86's int3 patching unsafe
			# here do not arise.
			tcg=,thread=multi ;;
		6.1:*)	# Every suite but codetag, whose flag writers need
			# two vCPUs that run at once (arm64's boot runs it).
			append="$append kunit.filter_glob=[!c]*" ;;
		esac ;;
	offboot) limit=${CODETAG_BOOT_TIMEOUT:-$tlimit}
		append="$append sysctl.vm.mem_profiling=0" ;;
	never)	limit=${CODETAG_BOOT_TIMEOUT:-$tlimit}
		append="$append sysctl.vm.mem_profiling=never" ;;
	sweep)	# The sweeps provoke KASAN reports on purpose: each one.
		limit=${CODETAG_BOOT_TIMEOUT:-$tlimit}
		append="$append kasan_multi_shot" ;;
	sweep-real)
		# make sweep: hours of workloads under KASAN and lockdep.
		limit=${CODETAG_BOOT_TIMEOUT:-14400}
		append="$append kasan_multi_shot" ;;
	soak)	# The soak's time, and as long again for the set-up and
		# the checks after it on a debug kernel; then a third of it
		# for the control plane's torture (80-control-torture.t).
		local secs=${CODETAG_SOAK_SECONDS:-300}
		limit=$((2 * secs + 900 + secs / 3))
		append="$append codetag.soak=$secs codetag.torture=$((secs / 3))" ;;
	bench|workload|clock)
		# One vCPU, guest time counting instructions: exact figures,
		# and busy waits whose true lengths are known (clock). The
		# workload's minute of guest time can take half an hour of a
		# host busy with other work.
		limit=${CODETAG_BOOT_TIMEOUT:-$tlimit}; cpus=1
		[ "$mode" = workload ] && limit=${CODETAG_BOOT_TIMEOUT:-3600}
		extra=(-icount shift=0,sleep=off) ;;
	demo)	limit=600; append="$append quiet" ;;
	shell)	limit=0 ;;
	rootfail)
		# The root is refused and the kernel panics; panic=-1 and
		# -no-reboot then end QEMU. Its console is the result.
		limit=${CODETAG_BOOT_TIMEOUT:-900} ;;
	esac
	case $flavor in
	distro*)
		# Debian's root on virtio-blk, swap on a second disk, 2 GiB in
		# two NUMA nodes of one CPU each (one socket per node).
		mem=2G
		append="$append root=/dev/vda rw rootfstype=ext4 init=/codetag-init"
		# Each initcall's return, for 05-boot.t.
		[ "$mode" = test ] && append="$append initcall_debug"
		disk=(-drive "file=$(disk_image "$flavor" disk),format=raw,if=virtio"
		      -drive "file=$(disk_image "$flavor" swap),format=raw,if=virtio"
		      -object memory-backend-ram,id=m0,size=1G
		      -object memory-backend-ram,id=m1,size=1G
		      -numa node,nodeid=0,memdev=m0
		      -numa node,nodeid=1,memdev=m1)
		# A third disk whose ext4 superblock fails its checksum, to
		# boot from for the messages of a refused root.
		if [ "$mode" = rootfail ] && [ -n "${CODETAG_BAD_ROOT:-}" ]; then
			make_bad_root "$B/badroot.img"
			disk+=(-drive "file=$B/badroot.img,format=raw,if=virtio")
			append="$append root=/dev/vdc"
		fi
		if [ "$cpus" -eq 2 ]; then
			disk+=(-numa cpu,node-id=0,socket-id=0
			       -numa cpu,node-id=1,socket-id=1)
		fi
		cpus="$cpus,sockets=$cpus" ;;
	*)	disk=(-initrd "$B/initramfs-$flavor.cpio") ;;
	esac
	# KVM hangs guests on these machines: TCG unless asked otherwise.
	local qemu results=()
	if [ "$mode" = rootfail ]; then
		results=(-display none -serial stdio)
	elif [ "$mode" != demo ] && [ "$mode" != shell ]; then
		rm -f "$B/$mode-$flavor.txt"
		results=(-display none -serial stdio)
	else
		results=(-nographic)
	fi
	case $(arch_of "$flavor") in
	arm64)
		# "virt" has one UART for Linux: the results go to a virtio
		# console, hvc0. Its CPU has every feature TCG emulates,
		# MTE among them (which KASAN_HW_TAGS needs and the machine
		# must then expose).
		local machine=virt
		[ "$flavor" = arm64-hwtags ] && machine=virt,mte=on
		qemu=(qemu-system-aarch64 -M "$machine"
		      -accel "${CODETAG_ACCEL:-tcg$tcg}" -cpu max -m "$mem"
		      -smp "$cpus" -nic none "${extra[@]}" -no-reboot
		      -kernel "$out/arch/arm64/boot/Image" "${disk[@]}")
		append="$append codetag.results=hvc0"
		if [ "$mode" != demo ] && [ "$mode" != shell ]; then
			results+=(-device virtio-serial-device
				  -chardev "file,id=results,path=$B/$mode-$flavor.txt"
				  -device virtconsole,chardev=results)
		fi ;;
	*)
		# TCG's "max" CPU offers 5-level paging, which the machines
		# our users run 6.1 on rarely have, and which 6.1 itself trips
		# over under KASAN: arch_cpu_finalize_init() runs
		# identify_boot_cpu() with interrupts on, and identify_cpu()
		# zeroes boot_cpu_data's capability words before reading them
		# back. An interrupt in that window finds LA57 clear, so KASAN
		# takes the 5-level direct map for a wild address ("BUG: KASAN:
		# wild-memory-access in rcu_is_watching" early in boot). The
		# guests run with 4-level paging, as the users' machines do.
		qemu=(qemu-system-x86_64 -accel "${CODETAG_ACCEL:-tcg$tcg}"
		      -cpu max,la57=off -m "$mem" -smp "$cpus" -nic none
		      "${extra[@]}" -no-reboot
		      -kernel "$out/arch/x86/boot/bzImage" "${disk[@]}")
		[ "$mode" != demo ] && [ "$mode" != shell ] &&
		[ "$mode" != rootfail ] &&
			results+=(-serial "file:$B/$mode-$flavor.txt") ;;
	esac
	qemu+=("${results[@]}" -append "$append")
	if [ "$limit" -gt 0 ]; then
		timeout --foreground "$limit" "${qemu[@]}"
	else
		exec "${qemu[@]}"
	fi
}

# "kunit nofault": the allocation profiling suites in a UML kernel without
# fault points, which alloc_tags.ctx must not need. "kunit arm64": the
# suites in an arm64 kernel under QEMU, also without fault points (their
# suite is the same C code on every architecture, and runs under UML),
# with two CPUs running at once (the races between writers of one word
# need them) and page tags in page->flags, where UML keeps them in
# page_ext, the tracepoints (the system call exit event of ERR() codes),
# and software tag-based KASAN, whose own tag leaves fewer bits of
# page->flags to page tags. Not MEM_ALLOC_PROFILING_DEBUG: a test plants
# the stale page reference that option reports. Its log is checked for
# splats, so an RCU stall is reported after two minutes, as in the distro
# guests, not after a busy host's 21 s. "make check" runs the first and
# the last. The first, UML kernel also has the page reference
# tracepoints, through which a test forces the interleaving of a race in
# __free_pages(); the others run without them, as shipped.
cmd_kunit() {
	local dir=out-kunit extra=() cc=$CC_WRAP nm

	cd "$SRC"
	case ${1:-} in
	"")	[ "$KERNEL" = 6.1 ] &&
		extra=(--kconfig_add CONFIG_ENABLE_DEFAULT_TRACERS=y
		       --kconfig_add CONFIG_DEBUG_PAGE_REF=y) ;;
	nofault) dir=out-kunit-nofault
		extra=(--kconfig_add CONFIG_CODETAG_DYNAMIC_FAULT=n 'alloc_tag*') ;;
	arm64)	dir=out-kunit-arm64
		cc="ccache aarch64-linux-gnu-gcc"
		nm=$(nm_of aarch64-linux-gnu-)
		extra=(--arch=arm64 --cross_compile=aarch64-linux-gnu-
		       --kconfig_add CONFIG_CODETAG_DYNAMIC_FAULT=n
		       --kconfig_add CONFIG_MEM_ALLOC_PROFILING_PAGE_EXT=n
		       --kconfig_add CONFIG_ENABLE_DEFAULT_TRACERS=y
		       --kconfig_add CONFIG_KASAN=y
		       --kconfig_add CONFIG_KASAN_SW_TAGS=y
		       --kconfig_add CONFIG_KASAN_OUTLINE=y
		       --kernel_args rcupdate.rcu_cpu_stall_timeout=120
		       --qemu_args "-smp 2") ;;
	*)	die "unknown KUnit variant '$1'" ;;
	esac
	nm=${nm:-$(nm_of "")}
	./tools/testing/kunit/kunit.py run \
		--kunitconfig=lib/codetag/kunit/.kunitconfig \
		--build_dir="$dir" --jobs="$JOBS" --timeout=600 \
		--make_options CC="$cc" --make_options NM="$nm" "${extra[@]}"
}

# Files the series touches, for "make patch".
patched_files() {
	sed -n 's|^+++ b/\([^[:space:]]*\).*|\1|p' $(series_patches) | sort -u
}

# The files the series creates: those it does not find in 6.1.
new_files() {
	awk '/^--- \/dev\/null/ { getline; sub(/^\+\+\+ b\//, ""); print }' \
		$(series_patches) | sort -u
}

# The files of 6.1 that the series changes.
upstream_files() {
	comm -23 <(patched_files) <(new_files)
}

# Unpack the pristine versions of the files the series changes into $1.
unpack_changed() {
	local dest=$1 f
	rm -rf "$dest"
	mkdir -p "$dest"
	tar -C "$dest" -xJf "$TARBALL" --strip-components=1 \
		$(for f in $(upstream_files); do echo "$TARDIR/$f"; done)
}

cmd_patch() {
	local dest=${1:-$B/codetag-$KERNEL.patch} pristine=$B/pristine f
	cmd_tree
	unpack_changed "$pristine"
	{
		for f in $(patched_files); do
			if [ -e "$pristine/$f" ]; then
				diff -up --label "a/$f" --label "b/$f" \
					"$pristine/$f" "$SRC/$f" || true
			else
				diff -uN --label /dev/null --label "b/$f" \
					/dev/null "$SRC/$f" || true
			fi
		done
	} > "$dest"
	log "wrote ${dest#$ROOT/} ($(grep -c '^+++ ' "$dest") files)"
}

# A git repository in $1 holding the 6.1 files the series changes, as its
# first commit, tagged "base", with the series applied by "git am" on top:
# what a developer who applies the series to their 6.1 tree gets. Only
# the files the series touches are needed for that.
series_git() {
	local repo=$1
	unpack_changed "$repo"
	git_am_series "$repo" "Linux $KERNEL: the files the series changes"
}

# Make the 6.1 files in $1 a git repository's first commit, message $2,
# tagged "base", and apply the series on top with "git am".
git_am_series() {
	local repo=$1 message=$2
	(
		cd "$repo" &&
		export GIT_AUTHOR_NAME=codetag GIT_AUTHOR_EMAIL=codetag@localhost \
		       GIT_COMMITTER_NAME=codetag \
		       GIT_COMMITTER_EMAIL=codetag@localhost &&
		git init -q -b series . &&
		git add -f -A . &&
		git commit -q -m "$message" &&
		git tag base &&
		if [ -n "$(series_patches)" ]; then
			git am -q --whitespace=error-all $(series_patches)
		fi
	) || die "the series does not apply with git am (see ${repo#$ROOT/})"
}

# The series applies with "git am" to 6.1, and the tree at its last patch
# is the one the kernels are built from.
cmd_series_test() {
	local repo=$B/series-test f
	cmd_tree
	series_git "$repo"
	for f in $(patched_files); do
		cmp -s "$repo/$f" "$SRC/$f" ||
			die "$f: the series' last patch gives another file than the tree built here"
	done
	[ "$(git -C "$repo" rev-list --count base..HEAD)" -eq \
	  "$(series_patches | wc -l)" ] || die "git am made too few commits"
	rm -rf "$repo"
}

# "make series": the series as a developer sends it, in build/series/:
# git format-patch of the patches, with the cover letter of
# patches/cover-letter (subject, blank line, text) and the shortlog and
# diffstat that format-patch makes.
cmd_series() {
	local repo=$B/series-git out=$B/series subject
	cmd_tree
	series_git "$repo"
	rm -rf "$out"
	subject=$(head -1 "$PATCHES/cover-letter")
	git -C "$repo" format-patch -q --cover-letter --zero-commit \
		--no-signature -o "$out" base..HEAD
	python3 - "$out/0000-cover-letter.patch" "$subject" \
		"$PATCHES/cover-letter" <<'PY'
import sys
path, subject, text = sys.argv[1], sys.argv[2], open(sys.argv[3]).read()
body = text.split('\n', 2)[2] if text.count('\n') >= 2 else ''
s = open(path).read()
s = s.replace('*** SUBJECT HERE ***', subject).replace('*** BLURB HERE ***', body.rstrip('\n'))
open(path, 'w').write(s)
PY
	rm -rf "$repo"
	log "wrote ${out#$ROOT/}/: $(ls "$out" | wc -l) files"
}

# "make series-check": apply the series one patch at a time to a fresh
# 6.1 tree and build the guest kernel after each, incrementally with
# ccache; after a patch that adds or changes a KUnit suite, run the KUnit
# suites (UML). Options the series has not added yet are left out of the
# configuration. One "ok"/"not ok" line per patch.
cmd_series_check() {
	local tree=$B/series-check out n=0 failed=0 p name t0 kt
	local frags="$X86 $CT" LOGS=$B/logs
	out=$tree/out-guest
	mkdir -p "$LOGS"
	unpack_pristine "$tree"
	for p in $(series_patches); do
		n=$((n + 1))
		name=${p##*/}
		t0=$SECONDS
		if ! patch -d "$tree" -p1 -s --no-backup-if-mismatch < "$p"; then
			echo "not ok $n - $name: does not apply"
			return 1
		fi
		mkdir -p "$out"
		make -s -C "$tree" O="$out" CC="$CC_WRAP" tinyconfig >/dev/null 2>&1
		"$tree/scripts/kconfig/merge_config.sh" -m -O "$out" \
			"$out/.config" $frags >/dev/null 2>&1
		make -s -C "$tree" O="$out" CC="$CC_WRAP" olddefconfig >/dev/null 2>&1
		if ! make -s -C "$tree" O="$out" CC="$CC_WRAP" -j"$JOBS" all \
			> "$LOGS/series-check-$n.log" 2>&1; then
			echo "not ok $n - $name: the guest kernel does not build (log: build/logs/series-check-$n.log)"
			failed=$((failed + 1))
			continue
		fi
		if grep -q "warning:" "$LOGS/series-check-$n.log"; then
			echo "not ok $n - $name: the guest kernel builds with warnings (log: build/logs/series-check-$n.log)"
			failed=$((failed + 1))
			continue
		fi
		kt=""
		if grep -q '^+++ b/lib/codetag/kunit/' "$p"; then
			if (cd "$tree" && ./tools/testing/kunit/kunit.py run \
				--kunitconfig=lib/codetag/kunit/.kunitconfig \
				--build_dir=out-kunit --jobs="$JOBS" --timeout=600 \
				--make_options CC="$CC_WRAP") \
				> "$LOGS/series-check-$n-kunit.log" 2>&1; then
				kt=", KUnit passed"
			else
				echo "not ok $n - $name: KUnit fails (log: build/logs/series-check-$n-kunit.log)"
				failed=$((failed + 1))
				continue
			fi
		fi
		echo "ok $n - $name ($((SECONDS - t0)) s$kt)"
	done
	[ $failed -eq 0 ]
}

# "make devtree": the series as commits of a git repository of the whole
# 6.1 tree, in build/devtree, for editing: commit changes as fixups of
# the patch they belong to, git rebase -i --autosquash, then "make
# export" writes patches/ back from it.
cmd_devtree() {
	local tree=$B/devtree
	[ -d "$tree/.git" ] && die "${tree#$ROOT/} exists: make export, or remove it"
	unpack_pristine "$tree"
	git_am_series "$tree" "Linux $KERNEL (Debian $TARDIR)"
	log "${tree#$ROOT/}: $(git -C "$tree" rev-list --count base..HEAD) patches on tag base"
}

# "make export": patches/ from build/devtree's commits since tag base.
cmd_export() {
	local tree=$B/devtree
	[ -d "$tree/.git" ] || die "no ${tree#$ROOT/}: make devtree first"
	rm -f "$PATCHES"/[0-9][0-9][0-9][0-9]-*.patch
	git -C "$tree" format-patch -q --zero-commit --no-signature --abbrev=7 \
		-o "$PATCHES" base..HEAD
	{
		echo "# The series, in the order git am applies it: see README.md."
		(cd "$PATCHES" && ls [0-9][0-9][0-9][0-9]-*.patch)
	} > "$PATCHES/series"
	log "wrote ${PATCHES#"$ROOT/"}/: $(series_patches | wc -l) patches"
}

# Apply "make patch" output to a fresh 6.1 tree: it must give exactly the
# tree that the kernels are built from (every file, ours included), so that
# the one-diff deliverable builds whenever they do.
cmd_patch_test() {
	local tree=$B/patchtest
	cmd_patch "$B/codetag-$KERNEL.patch"
	unpack_pristine "$tree"
	patch -d "$tree" -p1 -s --no-backup-if-mismatch \
		< "$B/codetag-$KERNEL.patch" || die "codetag-$KERNEL.patch does not apply"
	# Besides the flavours' object trees, checkpatch leaves its cache of
	# CamelCase words at the top of the tree it runs in, and 6.12's
	# htmldocs writes the netlink pages it generates into the sources.
	diff -r -q -x .codetag-series -x .codetag-files -x 'out-*' \
		-x '.checkpatch-camelcase.*' \
		-x netlink_spec \
		"$tree" "$SRC" >&2 ||
		die "the tree from codetag-$KERNEL.patch differs from the one we build"
	rm -rf "$tree"
}

# Commands that write a flavour's object tree or boot image take turns,
# so that make check can build the next flavours while it boots one.
# Clones that share a tree (tree_select()) take turns too.
lock_flavor() {
	local dir=$B
	[ -L "$SRC" ] && [ -d "$SRC/.." ] && dir=$SRC/..
	mkdir -p "$B"
	exec 9> "$dir/.lock-${1:-none}"
	flock 9
}

# times_record NAME COMMAND...: COMMAND's time, as a row of make check's
# table of times (CODETAG_TIMES names its file), once the flavour's lock
# is held: the time a build took, not the time it waited for another.
times_record() {
	local name=$1 t0=$SECONDS
	shift
	"$@"
	[ -z "${CODETAG_TIMES:-}" ] ||
		printf 'build\t%s\t%s\n' "$name" $((SECONDS - t0)) >> "$CODETAG_TIMES"
}

cmd=${1:-}
shift || true
# Every command but these works on the clone's tree: no other clone may
# give it another series meanwhile.
case $cmd in
deps|tree|rootfs|devtree|export|has-kunit|"") ;;
*)	tree_hold ;;
esac
case $cmd in
kernel|initramfs|image)
	lock_flavor "${1:-}"
	what=$cmd
	case $cmd:${1:-} in
	initramfs:distro*) what="root image" ;;
	initramfs:*) what="boot image" ;;
	esac
	times_record "$KERNEL ${1:-} $what" "cmd_$cmd" "$@" ;;
warnings)
	lock_flavor "${1:-}"
	"cmd_$cmd" "$@" ;;
has-kunit)
	has_kunit "${1:-}" ;;
tree)	times_record "$KERNEL tree" cmd_tree ;;
rootfs)	times_record "Debian root filesystem" cmd_rootfs ;;
deps|boot|kunit|patch)
	"cmd_$cmd" "$@" ;;
patch-test)
	cmd_patch_test "$@" ;;
series)
	cmd_series "$@" ;;
series-test)
	cmd_series_test "$@" ;;
new-files)
	new_files ;;
series-check|devtree|export)
	"cmd_${cmd//-/_}" "$@" ;;
*)
	sed -n '4,/^# Everything/p' "$0" | sed -e '$d' -e 's/^# \{0,1\}//'
	exit 2 ;;
esac
