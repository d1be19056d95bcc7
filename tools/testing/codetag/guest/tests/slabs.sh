#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Lists every slab cache (merged caches under each of their names) with
# its slab_size, objs_per_slab and order, as "# slab NAME SIZE OBJS
# ORDER" lines of the results, for the host to compare between a kernel
# with allocation profiling compiled in and one without.

. /tests/lib.sh

n=0
for d in /sys/kernel/slab/*; do
	name=${d##*/}
	echo "# slab $name $(cat $d/slab_size) $(cat $d/objs_per_slab) $(cat $d/order)" >> "$RESULTS"
	n=$((n + 1))
done
check "the slab caches are listed ($n)" [ $n -gt 0 ]
