// SPDX-License-Identifier: GPL-2.0
/*
 * Generated writes to codetag control files, from a shell in the guest:
 *
 *   ctfuzz SEED WRITES FILE SCOPE [FILE SCOPE ...]
 *
 * Each write is one to four commands (now and then forty) made of the
 * grammar's words and values, quotes, backslashes and comment marks in
 * every position, very long words, numbers at and past their limits, NUL
 * bytes, and writes longer than a page. Every command starts with its
 * file's SCOPE ("module codetag_test_fault "), which is never altered and
 * never followed by a separator the generator made, so that whatever the
 * quotes do, the writes change nothing outside the scope.
 *
 * A write must be taken whole, or refused: with E2BIG if longer than a
 * page, EINVAL if it holds a NUL byte, else EINVAL or ENOENT. Every
 * hundredth write that is refused must leave the scope's lines of the
 * listing as they were. The first failure is printed with the seed and
 * the write's number, its bytes escaped, and ends the run with status 1.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PAGE		4096
#define BUF_SIZE	(2 * PAGE)

static const char *const words[] = {
	"file", "func", "module", "class", "line", "index",
	"*", "?", "*.c", "x.c", "mm/*", "memory", "memory:slab", "test:*",
	"0", "1", "7", "1-2", "2-1", "0-0", "1-", "-1", "-", "+1", "0x10",
	"007", "100", "101", "2147483647", "2147483648", "4294967295",
	"4294967296", "18446744073709551615", "18446744073709551616",
	"enable", "disable", "oneshot", "times", "frequency", "probability",
	"pid", "pgid", "comm", "verbose", "reset", "hit",
};

/* Without the separators (the last two) inside a scope. */
static const char marks[] = "\"'\\#\t ;\n";

static unsigned long long rng;

static unsigned int rnd(unsigned int n)
{
	rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned int)(rng >> 33) % n;
}

struct out {
	char buf[BUF_SIZE];
	size_t len;
};

static void put(struct out *o, const char *s, size_t n)
{
	if (n > sizeof(o->buf) - o->len)
		n = sizeof(o->buf) - o->len;
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

static void puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

static char mark(void)
{
	return marks[rnd(sizeof(marks) - 3)];
}

static void word(struct out *o)
{
	unsigned int r = rnd(16);
	char s[32];

	if (r < 11) {
		puts_(o, words[rnd(sizeof(words) / sizeof(words[0]))]);
	} else if (r == 11) {
		static char long_word[5000];

		memset(long_word, 'a', sizeof(long_word));
		/* Rarely past a page: the whole write must be refused. */
		put(o, long_word, rnd(8) ? rnd(300) : rnd(sizeof(long_word)));
	} else if (r == 12) {
		snprintf(s, sizeof(s), "%llu", rng >> rnd(64));
		puts_(o, s);
	} else {
		s[0] = mark();
		put(o, s, 1);
	}
}

static void generate(struct out *o, const char *scope)
{
	unsigned int cmds = rnd(50) ? 1 + rnd(4) : 40, c, w, nw;

	o->len = 0;
	for (c = 0; c < cmds; c++) {
		size_t start;

		if (c)
			puts_(o, rnd(2) ? ";" : "\n");
		puts_(o, scope);
		start = o->len;
		nw = rnd(10);
		for (w = 0; w < nw; w++) {
			if (w && rnd(8))
				puts_(o, " ");
			word(o);
		}
		if (o->len > start && !rnd(4))
			o->buf[start + rnd(o->len - start)] = mark();
		if (o->len > start && !rnd(50))
			o->buf[start + rnd(o->len - start)] = '\0';
	}
}

static void print_write(const struct out *o)
{
	size_t i;

	for (i = 0; i < o->len && i < 600; i++) {
		unsigned char ch = o->buf[i];

		if (ch >= 32 && ch < 127 && ch != '\\')
			putchar(ch);
		else
			printf("\\x%02x", ch);
	}
	putchar('\n');
}

/* The lines of @path that hold @scope's module name, into @snap. */
static void snapshot(const char *path, const char *module, char **snap)
{
	char line[1024];
	size_t size = 0;
	FILE *f, *m;

	free(*snap);
	*snap = NULL;
	m = open_memstream(snap, &size);
	f = fopen(path, "r");
	if (!f || !m) {
		perror(path);
		exit(2);
	}
	while (fgets(line, sizeof(line), f))
		if (strstr(line, module))
			fputs(line, m);
	fclose(f);
	fclose(m);
}

/* "module:NAME " from a scope "module NAME ". */
static void scope_module(const char *scope, char *module, size_t size)
{
	char name[128] = "";

	sscanf(scope, "module %127s", name);
	snprintf(module, size, "module:%s ", name);
}

int main(int argc, char **argv)
{
	unsigned long long seed, nr, i;
	unsigned long applied = 0, refused[3] = { 0 };
	char *before = NULL, *after = NULL, module[160];
	static struct out o;
	struct timespec t0, t1;
	int nfiles, k, fd;

	if (argc < 5 || argc % 2 == 0) {
		fprintf(stderr, "usage: %s SEED WRITES FILE SCOPE [FILE SCOPE ...]\n",
			argv[0]);
		return 2;
	}
	seed = strtoull(argv[1], NULL, 0);
	nr = strtoull(argv[2], NULL, 0);
	nfiles = (argc - 3) / 2;
	rng = seed;
	printf("# seed %llu (replay: ctfuzz %llu %llu ...)\n", seed, seed, nr);
	clock_gettime(CLOCK_MONOTONIC, &t0);

	for (i = 0; i < nr; i++) {
		const char *path, *scope;
		size_t nul;
		ssize_t ret;
		int err;

		k = rnd(nfiles);
		path = argv[3 + 2 * k];
		scope = argv[4 + 2 * k];
		generate(&o, scope);
		nul = strnlen(o.buf, o.len);
		scope_module(scope, module, sizeof(module));
		if (i % 100 == 0)
			snapshot(path, module, &before);
		fd = open(path, O_WRONLY);
		if (fd < 0) {
			perror(path);
			return 2;
		}
		ret = write(fd, o.buf, o.len);
		err = errno;
		close(fd);
		if (ret == (ssize_t)o.len && o.len <= PAGE && nul == o.len) {
			applied++;
			continue;
		}
		if (ret >= 0 ? 0 :
		    o.len > PAGE ? err == E2BIG :
		    nul < o.len ? err == EINVAL :
		    err == EINVAL || err == ENOENT) {
			refused[o.len > PAGE ? 0 : nul < o.len ? 1 : 2]++;
			if (i % 100)
				continue;
			snapshot(path, module, &after);
			if (!strcmp(before, after))
				continue;
			printf("# seed %llu write %llu to %s: refused, but changed:\n# before:\n%s# after:\n%s# ",
			       seed, i, path, before, after);
		} else {
			printf("# seed %llu write %llu to %s (%zu bytes, NUL at %zu): %zd, %s\n# ",
			       seed, i, path, o.len, nul, ret,
			       ret < 0 ? strerror(err) : "taken");
		}
		print_write(&o);
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	printf("# %llu writes in %.1f s: %lu taken, refused %lu over a page (E2BIG), %lu with a NUL (EINVAL), %lu malformed or matching nothing\n",
	       nr, t1.tv_sec - t0.tv_sec + (t1.tv_nsec - t0.tv_nsec) / 1e9,
	       applied, refused[0], refused[1], refused[2]);
	free(before);
	free(after);
	return 0;
}
