#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# What "make demo" shows inside the guest. Short and readable: it is the
# first thing a newcomer runs.

D=/sys/kernel/debug
say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '# %s\n' "$*"; sh -c "$*"; }

echo "codetag guest demo"
say "codetag on Linux $(uname -r): tag types registered at boot"
run "cat $D/codetag/types"
[ -s $D/codetag/types ] || echo "(none: no application is built into this kernel yet)"

say "A module with code tags comes and goes"
run "insmod /modules/codetag_test_type.ko"
run "insmod /modules/codetag_test_tags.ko"
run "cat $D/codetag/types"
run "cat $D/codetag_test/tags"
say "One control language for every application: select, then act"
run "echo 'file codetag_test_tags.c func site_one hit' > $D/codetag_test/control"
run "grep site_one $D/codetag_test/tags"
say "A malformed command changes nothing; the kernel log names the bad word"
run "echo 'func site_one line 0-x hit' > $D/codetag_test/control"
run "rmmod codetag_test_tags"
run "cat $D/codetag/types"
run "rmmod codetag_test_type"
echo
