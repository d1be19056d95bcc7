#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# mount -o mistakes on ext4, xfs and btrfs (tmpfs's are in 50-errcode.t),
# each traced to the line of the check that refused it: in the kernel log,
# in error_codes and by "codetag errors --trace". mount(2) still fails
# with EINVAL, and the same filesystem mounts with good options. Distro
# flavours only: the small guests have no block filesystems.

. /tests/lib.sh
E=/sys/kernel/debug/error_codes
MNT=/tmp/errcode-mounts
mkdir -p $MNT

# util-linux's mount, not busybox's: busybox passes MS_SILENT with every
# mount, and the VFS does not log a refused mount while it is silenced
# (the root's filesystems are probed so).
MOUNT=/usr/bin/mount
[ -x $MOUNT ] || MOUNT=mount

# refused FS OPTIONS WORD FILE: mount FS with OPTIONS fails with EINVAL,
# and the log, error_codes and the event name a line of FILE.
refused() {
	_fs=$1 _opts=$2 _word=$3 _file=$4
	dmesg_mark
	if $MOUNT -t $_fs -o "$_opts" "$DEV" $MNT 2>/tmp/err; then
		notok "$_fs: mount -o $_opts is refused"
		umount $MNT
		return
	fi
	check "$_fs: mount -o $_opts fails with EINVAL" grep -q 'Invalid argument\|wrong fs type' /tmp/err
	_msg=$(dmesg | tail -n +$((DMESG_MARK + 1)) | grep -E "$_fs: ($_word refused|mount failed): error -EINVAL at ")
	echo "# $_msg"
	_site=$(echo "$_msg" | grep -oE "$_file:[0-9]+" | head -1)
	check "$_fs: the log names the check at $_file (${_site:-none})" [ -n "$_site" ]
	check "$_fs: error_codes counts it" \
		grep -Eq "^$_site module:[a-z0-9_]+ func:[A-Za-z0-9_.]+ class:-EINVAL code:-[0-9]+ returned:[1-9]" $E
	# The events alone: util-linux writes a message in parts, and an
	# event printed meanwhile would land inside it.
	_out=$(codetag errors --trace -- $MOUNT -t $_fs -o "$_opts" "$DEV" $MNT 2>/tmp/trace.err)
	{ echo "$_out"; cat /tmp/trace.err; } | sed 's/^/#   /'
	check "$_fs: codetag errors --trace: 'mount -> -EINVAL at $_site'" \
		sh -c "echo \"$_out\" | grep -q '^mount -> -EINVAL at $_site  '"
}

# mounts FS OPTIONS: the same filesystem mounts with good options.
mounts() {
	if $MOUNT -t $1 -o "$2" "$DEV" $MNT; then
		ok "$1: mount -o $2 works"
		umount $MNT
	else
		notok "$1: mount -o $2 works"
	fi
}

modprobe loop
for fs in ext4 xfs btrfs; do
	img=/tmp/errcode-$fs.img
	truncate -s 320M $img
	case $fs in
	ext4)	mkfs.ext4 -q -F $img ;;
	xfs)	mkfs.xfs -q -f $img ;;
	btrfs)	mkfs.btrfs -q -f $img >/dev/null ;;
	esac
	DEV=$(losetup -f) && losetup $DEV $img || notok "$fs: a loop device for $img"
	case $fs in
	ext4)	refused ext4 bogus_option "option 'bogus_option'" fs/fs_context.c
		refused ext4 commit=abc "option 'commit'" fs/fs_parser.c
		refused ext4 journal_ioprio=9 "option 'journal_ioprio'" fs/ext4/super.c
		mounts ext4 journal_ioprio=3 ;;
	xfs)	refused xfs bogus_option "option 'bogus_option'" fs/fs_context.c
		refused xfs logbufs=100 "option 'logbufs'" fs/xfs/xfs_super.c
		mounts xfs logbufs=4 ;;
	btrfs)	if [ "$K612" ]; then
			# btrfs takes its options one by one from the
			# VFS since 6.8: an unknown one is the generic
			# parser's to refuse, a bad value btrfs's.
			refused btrfs bogus_option "option 'bogus_option'" fs/fs_context.c
			refused btrfs compress=bogus "option 'compress'" fs/btrfs/super.c
		else
			refused btrfs bogus_option "option 'bogus_option'" fs/btrfs/super.c
		fi
		mounts btrfs noatime ;;
	esac
	losetup -d $DEV
	rm -f $img
done
