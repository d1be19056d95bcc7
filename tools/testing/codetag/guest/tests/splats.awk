# SPDX-License-Identifier: GPL-2.0
#
# Prints the lines of a kernel log that report a splat, or one of the
# failures a boot can log without one (a slab cache or a sysfs entry that
# could not be created, objects a destroyed cache still held, a hung
# task). Used by the guest on its dmesg and by the host on the console.
#
# Where faults are injected on purpose (the soak), allocation failure
# reports are expected: warn_alloc() prints "page allocation failure:" or
# "vmalloc error:" and then a stack. So is one warning: alloc_vmap_area()
# warns when it must split a free area and both its per-CPU preload
# (GFP_KERNEL) and its GFP_NOWAIT fallback failed, which two injected
# failures in a row make happen. And so, where a sweep leaks on purpose,
# is upstream 6.12's leak report: alloc_tag_module_unload() warns when a
# module unloads with allocations live. With -v allowed=1, a stack that
# follows such a line is theirs; every other stack, and every other
# report below, is still a splat.
#
# On the console, the guest's own TAP lines ("ok - ...", "not ok - ...",
# "# ...") share the stream with the kernel's: they are the tests' words,
# which may name KASAN or a WARNING, not reports. The guest checks dmesg
# itself, so a report that lands inside such a line is still caught.

BEGIN {
	splats = "BUG:|WARNING:|KASAN|UBSAN|possible circular locking|" \
		 "possible recursive locking|inconsistent lock state|" \
		 "suspicious RCU usage|DEBUG_LOCKS_WARN_ON|" \
		 "sleeping function called from invalid context|" \
		 "general protection fault|Oops|Kernel panic|Call Trace|" \
		 "blocked for more than|kobject_add_internal failed|" \
		 "kmem_cache_create.* failed|Objects remaining"
}
{ sub(/\r$/, "") }
/^(not )?ok - |^# / { next }
allowed && /page allocation failure: |vmalloc error: / { report = 1; next }
allowed && /WARNING: CPU: [0-9]+ PID: [0-9]+ at mm\/vmalloc\.c:[0-9]+ alloc_vmap_area\+/ {
	report = 1; next
}
allowed && /WARNING: CPU: [0-9]+ PID: [0-9]+ at lib\/alloc_tag\.c:[0-9]+ alloc_tag_module_unload\+/ {
	report = 1; next
}
/Call Trace/ && report { report = 0; next }
$0 ~ splats { print }
