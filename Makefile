# SPDX-License-Identifier: GPL-2.0
#
# codetag project entry points (this is not the kernel's Makefile).
#
#   make demo    build the guest kernel once, boot it, show codetag at work
#   make check   every test layer; last line "N passed, N failed"
#   make shell   boot the guest to a busybox shell (debugfs mounted);
#                FLAVOR=distro boots Debian's configuration and root instead
#   make soak    SOAK_SECONDS (3600) of stress with faults injected on the
#                distro debug kernel; results in build/soak-distro-debug.txt;
#                the KUnit suites on arm64 with tag-based KASAN and without
#                fault points; and the arm64 KASAN_HW_TAGS kernel built
#   make bench   instructions per allocate+free pair (qemu -icount)
#   make sweep   codetag sweep on real 6.1 code in the distro debug kernel
#                (hours); SWEEPS=ext4,loop for some workloads only
#   make patch   one diff against pristine 6.1: build/codetag-6.1.patch
#   make series  the patch series and its cover letter: build/series/
#   make series-check  build the guest kernel at every patch of the series
#   make devtree / make export  edit the series as git commits in
#                build/devtree, then write patches/ back from them
#   make clean   remove build/ (the compiler cache and the kernel trees,
#                in ~/.cache, stay)
#
# KERNEL=6.12 make demo|shell|patch|series|devtree|export works on the 6.12
# series, patches-6.12/, in build/6.12/; make check runs both.

H := tools/testing/codetag
FLAVOR ?= guest
SOAK_SECONDS ?= 3600

.PHONY: demo check shell soak bench sweep patch series series-check devtree export clean

demo:
	@$(H)/demo.sh

# LAYERS="kunit guest" runs only those layers (check.sh lists them).
check:
	@LAYERS="$(LAYERS)" $(H)/check.sh

shell:
	@$(H)/harness.sh deps && $(H)/harness.sh tree && \
	 $(H)/harness.sh kernel $(FLAVOR) && $(H)/harness.sh initramfs $(FLAVOR) && \
	 $(H)/harness.sh boot $(FLAVOR) shell

soak:
	@$(H)/harness.sh deps && $(H)/harness.sh tree && \
	 $(H)/harness.sh kernel arm64-hwtags && $(H)/harness.sh kunit arm64 && \
	 $(H)/harness.sh kernel distro-debug && $(H)/harness.sh initramfs distro-debug && \
	 CODETAG_SOAK_SECONDS=$(SOAK_SECONDS) $(H)/harness.sh boot distro-debug soak; \
	 cat build/soak-distro-debug.txt

bench:
	@$(H)/bench.sh

sweep:
	@$(H)/sweep-real.sh

patch:
	@$(H)/harness.sh deps && $(H)/harness.sh patch

series:
	@$(H)/harness.sh deps && $(H)/harness.sh series

series-check:
	@$(H)/harness.sh deps && $(H)/harness.sh series-check

devtree:
	@$(H)/harness.sh deps && $(H)/harness.sh devtree

export:
	@$(H)/harness.sh export

clean:
	rm -rf build
