// SPDX-License-Identifier: GPL-2.0
/*
 * errno-check: make one system call that must fail, and check the errno
 * that userspace gets for it. Unique error codes (ERR()) must never reach
 * userspace: the system call return hands it the standard errno, on every
 * architecture's path.
 *
 *   errno-check ERRNO mount FSTYPE DIR OPTIONS   mount(2)
 *   errno-check ERRNO write FILE TEXT            open(2) and write(2)
 *
 * Prints what the call gave; exits 0 if it failed with ERRNO exactly.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

static int bad_args(void)
{
	fprintf(stderr, "usage: errno-check ERRNO mount FSTYPE DIR OPTIONS\n"
			"       errno-check ERRNO write FILE TEXT\n");
	return 2;
}

int main(int argc, char **argv)
{
	long ret;
	int want, got, fd;
	char *end;

	if (argc < 3)
		return bad_args();
	want = strtol(argv[1], &end, 10);
	if (*end || want <= 0)
		return bad_args();
	if (!strcmp(argv[2], "mount") && argc == 6) {
		ret = mount("none", argv[4], argv[3], 0, argv[5]);
	} else if (!strcmp(argv[2], "write") && argc == 5) {
		fd = open(argv[3], O_WRONLY);
		if (fd < 0) {
			perror(argv[3]);
			return 2;
		}
		ret = write(fd, argv[4], strlen(argv[4]));
	} else {
		return bad_args();
	}
	got = errno;
	if (ret >= 0) {
		printf("%s succeeded, but should fail with errno %d\n",
		       argv[2], want);
		return 1;
	}
	printf("%s failed with errno %d (%s)\n", argv[2], got, strerror(got));
	return got == want ? 0 : 1;
}
