// SPDX-License-Identifier: GPL-2.0
/*
 * hmmmove: move anonymous memory to device-private pages and back, with
 * HMM's test driver (lib/test_hmm.c, which makes /dev/hmm_dmirror0).
 *
 *   hmmmove MIB
 *
 * Maps MIB MiB of anonymous memory in small pages, writes every page with
 * its own pattern, asks the driver to migrate all of it to its device
 * memory (migrate_vma(), ZONE_DEVICE pages), reads every page back, which
 * faults it back into system memory, checks it and unmaps it. Prints
 * "moved N pages to the device and back, N intact", or what failed, and
 * exits 0 only if every page went and came back intact.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define PAGE 4096UL

/* The driver's interface, lib/test_hmm_uapi.h: not an installed header. */
struct hmm_dmirror_cmd {
	uint64_t addr;
	uint64_t ptr;
	uint64_t npages;
	uint64_t cpages;
	uint64_t faults;
};

#define HMM_DMIRROR_MIGRATE_TO_DEV _IOWR('H', 0x02, struct hmm_dmirror_cmd)

static uint64_t pattern(unsigned long page)
{
	return 0x9e3779b97f4a7c15ULL * (page + 1);
}

int main(int argc, char **argv)
{
	struct hmm_dmirror_cmd cmd = { 0 };
	unsigned long pages, i, intact = 0;
	uint64_t *mem;
	void *bounce;
	int fd;

	if (argc != 2 || atol(argv[1]) <= 0) {
		fprintf(stderr, "usage: hmmmove MIB\n");
		return 2;
	}
	pages = atol(argv[1]) * (1024 * 1024 / PAGE);
	fd = open("/dev/hmm_dmirror0", O_RDWR);
	if (fd < 0) {
		printf("open /dev/hmm_dmirror0: %s\n", strerror(errno));
		return 1;
	}
	mem = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	bounce = malloc(pages * PAGE);
	if (mem == MAP_FAILED || !bounce) {
		printf("no memory for %lu pages\n", pages);
		return 1;
	}
	/* migrate_vma() moves small pages only. */
	madvise(mem, pages * PAGE, MADV_NOHUGEPAGE);
	for (i = 0; i < pages; i++)
		mem[i * PAGE / 8] = pattern(i);

	cmd.addr = (uintptr_t)mem;
	cmd.ptr = (uintptr_t)bounce;
	cmd.npages = pages;
	if (ioctl(fd, HMM_DMIRROR_MIGRATE_TO_DEV, &cmd)) {
		printf("HMM_DMIRROR_MIGRATE_TO_DEV: %s\n", strerror(errno));
		return 1;
	}
	if (cmd.cpages != pages) {
		printf("moved %llu of %lu pages to the device\n",
		       (unsigned long long)cmd.cpages, pages);
		return 1;
	}
	/* Each read faults a device page back into system memory. */
	for (i = 0; i < pages; i++)
		intact += mem[i * PAGE / 8] == pattern(i);
	printf("moved %lu pages to the device and back, %lu intact\n",
	       pages, intact);
	munmap(mem, pages * PAGE);
	close(fd);
	return intact == pages ? 0 : 1;
}
