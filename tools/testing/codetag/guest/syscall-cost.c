// SPDX-License-Identifier: GPL-2.0
/*
 * syscall-cost: what one failing write(2) costs, from userspace.
 *
 *   syscall-cost FILE TEXT COUNT
 *
 * Writes TEXT to FILE COUNT times; every write must fail. Prints the guest
 * nanoseconds of one call, the cheapest of five runs: under
 * "qemu -icount shift=0,sleep=off" that is instructions per call.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	double best = 0, t0, t;
	long count, i;
	size_t len;
	int fd, run;

	count = argc == 4 ? atol(argv[3]) : 0;
	if (count <= 0) {
		fprintf(stderr, "usage: syscall-cost FILE TEXT COUNT\n");
		return 2;
	}
	fd = open(argv[1], O_WRONLY);
	if (fd < 0) {
		perror(argv[1]);
		return 2;
	}
	len = strlen(argv[2]);
	for (run = 0; run < 5; run++) {
		t0 = now_ns();
		for (i = 0; i < count; i++) {
			if (write(fd, argv[2], len) >= 0) {
				fprintf(stderr, "syscall-cost: a write succeeded\n");
				return 1;
			}
		}
		t = (now_ns() - t0) / count;
		if (!run || t < best)
			best = t;
	}
	printf("%.2f\n", best);
	return 0;
}
