// SPDX-License-Identifier: GPL-2.0
/*
 * errno-check: make one call that must fail, and check the errno that
 * userspace gets for it. Unique error codes (ERR()) must never reach
 * userspace: a system call's return hands it the standard errno, on every
 * architecture's path, and so do the results that reach it without one,
 * io_uring's completion queue entries and Linux AIO's events.
 *
 *   errno-check ERRNO mount FSTYPE DIR OPTIONS   mount(2)
 *   errno-check ERRNO write FILE TEXT            open(2) and write(2)
 *   errno-check ERRNO aio FILE TEXT              io_submit(IOCB_CMD_PWRITE)
 *   errno-check ERRNO uring FILE TEXT            IORING_OP_WRITE, inline
 *   errno-check ERRNO uring-async FILE TEXT      the same with IOSQE_ASYNC,
 *                                                from an io-wq worker
 *
 * Prints what the call gave; exits 0 if it failed with ERRNO exactly.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/aio_abi.h>
#include <linux/io_uring.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>

static int bad_args(void)
{
	fprintf(stderr, "usage: errno-check ERRNO mount FSTYPE DIR OPTIONS\n"
			"       errno-check ERRNO write|aio|uring|uring-async FILE TEXT\n");
	return 2;
}

/* One write through Linux AIO: the event's result, or the submission's. */
static long aio_write(int fd, const char *buf, size_t len, const char **how)
{
	aio_context_t ctx = 0;
	struct iocb cb, *cbs[1] = { &cb };
	struct io_event ev;
	long ret;

	if (syscall(__NR_io_setup, 1, &ctx) < 0) {
		*how = "io_setup";
		return -errno;
	}
	memset(&cb, 0, sizeof(cb));
	cb.aio_lio_opcode = IOCB_CMD_PWRITE;
	cb.aio_fildes = fd;
	cb.aio_buf = (uintptr_t)buf;
	cb.aio_nbytes = len;
	if (syscall(__NR_io_submit, ctx, 1, cbs) != 1) {
		*how = "io_submit";
		ret = -errno;
	} else if (syscall(__NR_io_getevents, ctx, 1, 1, &ev, NULL) != 1) {
		*how = "io_getevents";
		ret = -errno;
	} else {
		*how = "the AIO event's res";
		ret = ev.res;
	}
	syscall(__NR_io_destroy, ctx);
	return ret;
}

/*
 * One IORING_OP_WRITE through a ring of its own, without liburing: the
 * completion queue entry's result, or the failing call's errno.
 */
static long uring_write(int fd, const char *buf, size_t len, int async,
			const char **how)
{
	struct io_uring_params p;
	struct io_uring_sqe *sqes;
	struct io_uring_cqe *cqe;
	unsigned int *tail, *head;
	size_t sq_len, cq_len;
	char *sq, *cq;
	int ring;

	memset(&p, 0, sizeof(p));
	ring = syscall(__NR_io_uring_setup, 1, &p);
	if (ring < 0) {
		*how = "io_uring_setup";
		return -errno;
	}
	sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned int);
	cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	sq = mmap(NULL, sq_len, PROT_READ | PROT_WRITE, MAP_SHARED, ring,
		  IORING_OFF_SQ_RING);
	cq = mmap(NULL, cq_len, PROT_READ | PROT_WRITE, MAP_SHARED, ring,
		  IORING_OFF_CQ_RING);
	sqes = mmap(NULL, p.sq_entries * sizeof(*sqes), PROT_READ | PROT_WRITE,
		    MAP_SHARED, ring, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || sqes == MAP_FAILED) {
		*how = "mmap of the rings";
		return -errno;
	}
	memset(&sqes[0], 0, sizeof(sqes[0]));
	sqes[0].opcode = IORING_OP_WRITE;
	sqes[0].fd = fd;
	sqes[0].addr = (uintptr_t)buf;
	sqes[0].len = len;
	sqes[0].flags = async ? IOSQE_ASYNC : 0;
	sqes[0].user_data = 1;
	((unsigned int *)(sq + p.sq_off.array))[0] = 0;
	tail = (unsigned int *)(sq + p.sq_off.tail);
	__atomic_store_n(tail, *tail + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, ring, 1, 1, IORING_ENTER_GETEVENTS,
		    NULL, 0) < 0) {
		*how = "io_uring_enter";
		return -errno;
	}
	head = (unsigned int *)(cq + p.cq_off.head);
	tail = (unsigned int *)(cq + p.cq_off.tail);
	if (__atomic_load_n(tail, __ATOMIC_ACQUIRE) == *head) {
		*how = "io_uring_enter: no completion";
		return -ENODATA;
	}
	cqe = (struct io_uring_cqe *)(cq + p.cq_off.cqes) +
	      (*head & *(unsigned int *)(cq + p.cq_off.ring_mask));
	*how = async ? "the CQE's res (IOSQE_ASYNC)" : "the CQE's res";
	return cqe->res;
}

int main(int argc, char **argv)
{
	const char *how = NULL;
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
	} else if (argc == 5) {
		fd = open(argv[3], O_WRONLY);
		if (fd < 0) {
			perror(argv[3]);
			return 2;
		}
		if (!strcmp(argv[2], "write"))
			ret = write(fd, argv[4], strlen(argv[4]));
		else if (!strcmp(argv[2], "aio"))
			ret = aio_write(fd, argv[4], strlen(argv[4]), &how);
		else if (!strcmp(argv[2], "uring"))
			ret = uring_write(fd, argv[4], strlen(argv[4]), 0, &how);
		else if (!strcmp(argv[2], "uring-async"))
			ret = uring_write(fd, argv[4], strlen(argv[4]), 1, &how);
		else
			return bad_args();
	} else {
		return bad_args();
	}
	if (how) {
		/* A result, not a system call's return: -errno or a count. */
		if (ret >= 0) {
			printf("%s: %s is %ld, but should be -%d\n", argv[2],
			       how, ret, want);
			return 1;
		}
		got = -ret;
		printf("%s: %s is -%d (%s)\n", argv[2], how, got, strerror(got));
		return got == want ? 0 : 1;
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
