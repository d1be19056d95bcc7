#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# "make sweep" inside a distro guest: codetag sweep on real 6.1 code, with
# the workloads a user would pick. Each sweep's table goes to the results
# device between "== NAME" and "== end NAME" lines, which the host keeps in
# build/sweep/NAME.txt; its JSON follows on one line ("json NAME {...}").

RESULTS=${RESULTS:-/dev/ttyS1}
# Scopes are globs for the kernel, not for this shell.
set -f
stty -F $RESULTS raw -echo 2>/dev/null
# Debian's losetup and ip, not busybox's applets that the profile puts
# first: the workloads use options busybox lacks (losetup --show, netns).
PATH=/usr/sbin:/usr/bin:/sbin:/bin:$PATH
export PATH
MNT=/mnt/sweep
mkdir -p $MNT
ONLY=$(sed -n 's/.*codetag\.sweeps=\([^ ]*\).*/\1/p' /proc/cmdline | tr , ' ')

# sweep NAME ARGS...: codetag sweep ARGS, its results sent to the host.
sweep() {
	name=$1
	shift
	if [ -n "$ONLY" ] && ! echo " $ONLY " | grep -q " $name "; then
		return
	fi
	echo "codetag sweep-real: $name"
	t0=$(date +%s)
	codetag sweep --json "$@" > /tmp/$name.json 2> /tmp/$name.err
	rc=$?
	{
		echo "== $name"
		echo "# codetag sweep $*"
		echo "# exit $rc in $(($(date +%s) - t0)) s"
		sed 's/^/# /' /tmp/$name.err
		echo "json $name $(cat /tmp/$name.json)"
		echo "== end $name"
	} >> $RESULTS
}

# Without udev, nothing loads loop on the first use of /dev/loop-control.
modprobe loop

# Images on tmpfs, made once: the workloads mount them through loop.
truncate -s 64M /tmp/ext4.img && mkfs.ext4 -q /tmp/ext4.img
truncate -s 320M /tmp/xfs.img && mkfs.xfs -q /tmp/xfs.img
truncate -s 160M /tmp/btrfs.img && mkfs.btrfs -q /tmp/btrfs.img
UMOUNT="umount $MNT 2>/dev/null; losetup -D"

# Loading and unloading xfs and btrfs first, while nothing uses them:
# each run loads the module, its point armed through its dynamic_fault=
# parameter, and the sweep unloads it after the run.
for fs in xfs btrfs; do
	sweep $fs-module --load $fs -t 120
done
sweep tmpfs -f mm/shmem.c -C "$UMOUNT" -- sh -c \
	"mount -t tmpfs none $MNT && cp -a /etc $MNT && cat $MNT/etc/passwd > /dev/null && umount $MNT"
for fs in xfs btrfs ext4; do
	case $fs in
	ext4)	scope="-f fs/ext4/*" ;;
	*)	scope="-m $fs" ;;
	esac
	sweep $fs $scope -t 120 -C "$UMOUNT" -- sh -c \
		"mount -o loop /tmp/$fs.img $MNT && cp -a /etc $MNT && sync &&
		 cat $MNT/etc/passwd > /dev/null && rm -r $MNT/etc && umount $MNT"
done
sweep loop -f drivers/block/loop.c -C "losetup -D" -- sh -c \
	'd=$(losetup -f --show /tmp/ext4.img) && losetup -d $d'
# The distro kernel has no veth: the namespace's loopback device only.
sweep netns -f net/core/net_namespace.c -C "ip netns del sweep 2>/dev/null" -- sh -c \
	"ip netns add sweep && ip -n sweep link set lo up && ip netns del sweep"
sweep inotify -f "fs/notify/*" -- stress-ng --inotify 1 --inotify-ops 20 -q
sweep eventfd -f fs/eventfd.c -- stress-ng --eventfd 1 --eventfd-ops 200 -q
echo done >> $RESULTS
