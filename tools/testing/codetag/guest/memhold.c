// SPDX-License-Identifier: GPL-2.0
/*
 * memhold: hold anonymous memory for the page mover tests.
 *
 *   memhold MIB [huge|nohuge] [same] [merge] [shmem] [collapse]
 *
 * Maps MIB MiB of anonymous memory (with "shmem", of a memfd, shared), advises it (nohuge: MADV_NOHUGEPAGE,
 * merge: MADV_MERGEABLE for KSM), writes every page (each with its own
 * pattern, or with "same" alike in runs of SAME_RUN pages, so that KSM can
 * merge them), with
 * "huge" advises MADV_HUGEPAGE only then (for khugepaged to collapse the
 * small pages), with "collapse" collapses them itself (MADV_COLLAPSE) and
 * prints "collapsed", then prints "ready" and waits. SIGUSR1 makes it read every
 * page back and check it (which swaps in what was swapped out) and print
 * "verified N" or "corrupt N", N the number of pages read. SIGUSR2 moves
 * every page with move_pages(2) to NUMA node 1, the next SIGUSR2 back to
 * node 0, and so on (again for pages that refuse for a moment), and
 * prints "moved N to node M, F failed, P passes". SIGTERM
 * ends it.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PAGE 4096UL

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif

/* Set by the handlers, read between sigsuspend() calls. */
static volatile sig_atomic_t verify_asked, move_asked, stop_asked;

static void on_usr1(int sig)
{
	verify_asked = 1;
}

static void on_usr2(int sig)
{
	move_asked = 1;
}

static void on_term(int sig)
{
	stop_asked = 1;
}

/*
 * KSM shares one page among at most max_page_sharing (256 by default)
 * mappings; beyond that it chains duplicate KSM pages, a few per full
 * scan, so that all-alike memory merges at a rate of ksmd's choosing.
 * Runs of 64 alike pages stay below the limit and merge in a few scans.
 */
#define SAME_RUN 64

static unsigned long pattern(unsigned long page, int same)
{
	if (same)
		page /= SAME_RUN;
	return 0x9e3779b97f4a7c15UL * (page + 1);
}

static void fill(unsigned long *p, unsigned long pages, int same)
{
	unsigned long i, j;

	for (i = 0; i < pages; i++)
		for (j = 0; j < PAGE / sizeof(long); j += 64)
			p[i * (PAGE / sizeof(long)) + j] = pattern(i, same);
}

static unsigned long check(unsigned long *p, unsigned long pages, int same)
{
	unsigned long i, j, bad = 0;

	for (i = 0; i < pages; i++)
		for (j = 0; j < PAGE / sizeof(long); j += 64)
			if (p[i * (PAGE / sizeof(long)) + j] != pattern(i, same))
				bad++;
	return bad;
}

/*
 * where(): the node each page is on, as move_pages(2) reports it with no
 * target (a negative errno for a page it cannot find, one swapped out).
 */
static int where(void **addr, unsigned long n, int *status)
{
	return syscall(SYS_move_pages, 0, n, addr, NULL, status, 0);
}

/*
 * move_all(): move_pages(2) of every page to @node; returns the pages that
 * are not there after MOVE_TRIES passes. A page can refuse to move for a
 * moment (-EBUSY or -EAGAIN while another task holds it, and a partial
 * failure makes the call stop early), so each pass asks where the pages
 * are, reads in the ones it cannot find, and moves again those that are
 * not on @node yet. *@passes is the number of passes it took.
 */
#define MOVE_TRIES 5
static unsigned long move_all(unsigned long *p, unsigned long pages, int node,
			      int *passes)
{
	void **addr = calloc(pages, sizeof(*addr));
	int *nodes = calloc(pages, sizeof(*nodes));
	int *status = calloc(pages, sizeof(*status));
	unsigned long i, n = pages, left = pages;
	volatile unsigned long sink;

	*passes = 0;
	if (!addr || !nodes || !status)
		goto out;
	for (i = 0; i < pages; i++) {
		addr[i] = (char *)p + i * PAGE;
		nodes[i] = node;
	}
	while (n && *passes < MOVE_TRIES) {
		(*passes)++;
		if (syscall(SYS_move_pages, 0, n, addr, nodes, status, 0) < 0)
			perror("memhold: move_pages");
		if (where(addr, n, status) < 0) {
			perror("memhold: move_pages (query)");
			break;
		}
		/* Keep the pages still elsewhere at the front of addr[]. */
		left = 0;
		for (i = 0; i < n; i++) {
			if (status[i] == node)
				continue;
			sink = *(unsigned long *)addr[i];
			addr[left++] = addr[i];
		}
		n = left;
		if (n)
			usleep(100000);
	}
	(void)sink;
out:
	free(addr);
	free(nodes);
	free(status);
	return left;
}

int main(int argc, char **argv)
{
	int huge = 0, nohuge = 0, same = 0, merge = 0, shmem = 0, collapse = 0;
	int node = 0, fd = -1, i;
	unsigned long mib, pages, *p;
	sigset_t mask, old;

	mib = argc < 2 ? 0 : strtoul(argv[1], NULL, 0);
	if (mib == 0) {
		fprintf(stderr, "usage: memhold MIB [huge|nohuge] [same] [merge] [shmem] [collapse]\n");
		return 2;
	}
	for (i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "huge")) {
			huge = 1;
		} else if (!strcmp(argv[i], "nohuge")) {
			nohuge = 1;
		} else if (!strcmp(argv[i], "same")) {
			same = 1;
		} else if (!strcmp(argv[i], "merge")) {
			merge = 1;
		} else if (!strcmp(argv[i], "shmem")) {
			shmem = 1;
		} else if (!strcmp(argv[i], "collapse")) {
			collapse = 1;
		} else {
			fprintf(stderr, "memhold: unknown word '%s'\n", argv[i]);
			return 2;
		}
	}
	pages = mib << 20 >> 12;
	if (shmem) {
		fd = memfd_create("memhold", 0);
		if (fd < 0 || ftruncate(fd, pages * PAGE)) {
			perror("memhold: memfd");
			return 1;
		}
	}
	if (shmem) {
		/*
		 * A file's huge page maps only where the address and the
		 * file offset agree modulo its size: map the memfd at a
		 * 2 MiB boundary, inside a reservation 2 MiB larger.
		 */
		unsigned long huge = 2UL << 20;
		char *r = mmap(NULL, pages * PAGE + huge, PROT_NONE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		p = MAP_FAILED;
		if (r != MAP_FAILED)
			p = mmap((void *)(((unsigned long)r + huge - 1) & ~(huge - 1)),
				 pages * PAGE, PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_FIXED, fd, 0);
	} else {
		p = mmap(NULL, pages * PAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	}
	if (p == MAP_FAILED) {
		perror("memhold: mmap");
		return 1;
	}
	if ((nohuge && madvise(p, pages * PAGE, MADV_NOHUGEPAGE)) ||
	    (merge && madvise(p, pages * PAGE, MADV_MERGEABLE))) {
		perror("memhold: madvise");
		return 1;
	}
	signal(SIGUSR1, on_usr1);
	signal(SIGUSR2, on_usr2);
	signal(SIGTERM, on_term);
	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	sigaddset(&mask, SIGUSR2);
	sigaddset(&mask, SIGTERM);
	sigprocmask(SIG_BLOCK, &mask, &old);
	fill(p, pages, same);
	/*
	 * Advised after the faults, the memory is small pages for
	 * khugepaged to collapse; advised before, with THP "madvise", the
	 * faults would have given huge pages, and with "never" khugepaged
	 * would not take the process on.
	 */
	if (huge && madvise(p, pages * PAGE, MADV_HUGEPAGE)) {
		perror("memhold: madvise");
		return 1;
	}
	if (collapse) {
		if (madvise(p, pages * PAGE, MADV_COLLAPSE)) {
			perror("memhold: MADV_COLLAPSE");
			return 1;
		}
		printf("collapsed\n");
	}
	printf("ready\n");
	fflush(stdout);
	while (!stop_asked) {
		sigsuspend(&old);
		if (verify_asked) {
			unsigned long bad = check(p, pages, same);

			verify_asked = 0;
			printf("%s %lu\n", bad ? "corrupt" : "verified", pages);
			fflush(stdout);
		}
		if (move_asked) {
			unsigned long failed;
			int passes;

			move_asked = 0;
			node = !node;
			failed = move_all(p, pages, node, &passes);
			printf("moved %lu to node %d, %lu failed, %d passes\n",
			       pages, node, failed, passes);
			fflush(stdout);
		}
	}
	return 0;
}
