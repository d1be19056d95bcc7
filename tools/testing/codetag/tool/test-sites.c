// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of tools/codetag/sites.c: the parsers on recorded and
 * malformed files, snapshots and recordings written and read back, the
 * comparison of two readings and the ranking of growing sites.
 *
 *   test-sites DATA_DIR
 *
 * prints one "ok - " or "not ok - " line per check. The figures expected
 * are those of the files in DATA_DIR (see its README), summed here by a
 * separate, naive reading of the same lines.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "codetag.h"

static const char *data;
static int failed;

static void check(bool cond, const char *fmt, ...)
{
	va_list ap;

	printf("%s - ", cond ? "ok" : "not ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	failed |= !cond;
}

static FILE *open_data(const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", data, name);
	f = fopen(path, "r");
	if (!f) {
		perror(path);
		exit(1);
	}
	return f;
}

/* Sum of the first column, and the number of lines, of an allocinfo file. */
static void naive_sum(const char *name, long long *bytes, size_t *lines)
{
	char line[4096], *end;
	long long b;
	FILE *f = open_data(name);

	*bytes = 0;
	*lines = 0;
	while (fgets(line, sizeof(line), f)) {
		b = strtoll(line, &end, 10);
		if (end != line) {
			*bytes += b;
			(*lines)++;
		}
	}
	fclose(f);
}

/* The lines of @f that end with @suffix, newline aside; from its start. */
static size_t lines_with_suffix(FILE *f, const char *suffix)
{
	char line[4096];
	size_t n = 0, len;

	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		len = strlen(line);
		n += len >= strlen(suffix) &&
		     !strcmp(line + len - strlen(suffix), suffix);
	}
	rewind(f);
	return n;
}

/* The lines of @f that start with @prefix; @f is read from the start. */
static size_t lines_with(FILE *f, const char *prefix)
{
	char line[1024];
	size_t n = 0;

	while (fgets(line, sizeof(line), f))
		n += !strncmp(line, prefix, strlen(prefix));
	rewind(f);
	return n;
}

/* The parsed sites add up to @bytes in @lines lines of the file. */
static bool sums_to(const struct alloc_sites *s, long long bytes, size_t lines)
{
	long long sum = 0;
	size_t i, count = 0;

	for (i = 0; i < s->nr; i++) {
		sum += s->v[i].bytes;
		count += s->v[i].count;
	}
	return sum == bytes && count == lines;
}

static int parse_allocinfo_file(const char *name, struct alloc_sites *s,
				struct parse_error *err)
{
	FILE *f = open_data(name);
	int ret;

	alloc_sites_init(s);
	memset(err, 0, sizeof(*err));
	ret = allocinfo_parse(f, s, err);
	fclose(f);
	return ret;
}

static void test_upstream_allocinfo(void)
{
	struct alloc_sites s;
	struct parse_error err;
	struct alloc_site *site;
	long long bytes;
	size_t lines;

	naive_sum("allocinfo-6.12", &bytes, &lines);
	check(!parse_allocinfo_file("allocinfo-6.12", &s, &err),
	      "upstream 6.12's /proc/allocinfo parses");
	check(sums_to(&s, bytes, lines),
	      "... every line is counted, %lld bytes in %zu lines", bytes, lines);
	check(s.nr == lines - 1,
	      "... the two lines of one inline function make one site");
	site = alloc_sites_find(&s, "include/linux/fs.h:3100 func:alloc_inode_sb");
	check(site && site->bytes == 73728 + 24576 && site->calls == 24 &&
	      site->count == 2, "... whose figures are their sums");
	site = alloc_sites_find(&s, "fs/ext4/super.c:1396 [ext4] func:ext4_alloc_inode");
	check(site && site->module && !strcmp(site->module, "ext4") &&
	      site->bytes == 8192, "... a module's site has its module");
	site = alloc_sites_find(&s, "mm/slub.c:2442 func:alloc_slab_page");
	check(site && !site->module && site->calls == 2560,
	      "... a built-in one has none");
	alloc_sites_free(&s);
}

/* Recorded: 6.12 ends each line with a blank, which must not matter. */
static void test_upstream_recorded(void)
{
	struct alloc_sites s;
	struct parse_error err;
	struct alloc_site *site;
	long long bytes;
	size_t lines;
	FILE *f = open_data("upstream-6.12/allocinfo");
	size_t blank_ended = lines_with_suffix(f, " ");

	fclose(f);
	naive_sum("upstream-6.12/allocinfo", &bytes, &lines);
	check(!parse_allocinfo_file("upstream-6.12/allocinfo", &s, &err) &&
	      blank_ended == lines,
	      "upstream 6.12's recorded /proc/allocinfo parses, each of its %zu lines ending in a blank",
	      lines);
	check(sums_to(&s, bytes, lines),
	      "... every line is counted, %lld bytes", bytes);
	site = alloc_sites_find(&s,
				"tools/testing/codetag/modules/codetag_bench.c:126 [codetag_bench] func:bench_vmalloc");
	check(site && site->module && !strcmp(site->module, "codetag_bench"),
	      "... a module's site, with its module and no blank in its name");
	alloc_sites_free(&s);
}

static void test_guest_allocinfo(void)
{
	struct alloc_sites s;
	struct parse_error err;
	struct alloc_site *site;
	long long bytes;
	size_t lines, i, unloaded = 0;
	FILE *f;

	naive_sum("guest/allocinfo", &bytes, &lines);
	check(!parse_allocinfo_file("guest/allocinfo", &s, &err),
	      "this kernel's /proc/allocinfo parses (%zu lines)", lines);
	check(sums_to(&s, bytes, lines),
	      "... every line is counted, %lld bytes", bytes);
	f = open_data("guest/alloc_tags");
	check(!alloc_tags_mark_unloaded(f, &s, &err),
	      "... and its alloc_tags, for the marks of unloaded modules");
	fclose(f);
	for (i = 0; i < s.nr; i++)
		unloaded += s.v[i].unloaded;
	site = alloc_sites_find(&s,
				"tools/testing/codetag/modules/codetag_test_leak.c:28 [codetag_test_leak] func:leak_pages");
	check(unloaded == 2 && site && site->unloaded,
	      "... the leak module's two sites are marked unloaded");
	alloc_sites_free(&s);
}

/* @text in a stream, for the parsers. */
static FILE *stream_of(const char *text)
{
	FILE *f = tmpfile();

	fputs(text, f);
	rewind(f);
	return f;
}

/*
 * A module unloaded with its memory live, then loaded again: its kept
 * tags and its new ones print alike in allocinfo. The site is unloaded
 * only once every line of it is.
 */
static void test_unloaded_and_reloaded(void)
{
	static const char allocinfo[] =
		"       4096        1 m.c:1 [m] func:f\n"
		"          0        0 m.c:1 [m] func:f\n";
	static const char one_kept[] =
		"4KiB 1 m.c:1 module:m func:f [unloaded]\n"
		"0B 0 m.c:1 module:m func:f\n";
	static const char both_kept[] =
		"4KiB 1 m.c:1 module:m func:f [unloaded]\n"
		"0B 0 m.c:1 module:m func:f [unloaded]\n";
	struct alloc_sites s;
	struct parse_error err;
	bool reloaded, gone;
	FILE *f;

	alloc_sites_init(&s);
	f = stream_of(allocinfo);
	allocinfo_parse(f, &s, &err);
	fclose(f);
	f = stream_of(one_kept);
	alloc_tags_mark_unloaded(f, &s, &err);
	fclose(f);
	reloaded = s.nr == 1 && !s.v[0].unloaded;
	f = stream_of(both_kept);
	alloc_tags_mark_unloaded(f, &s, &err);
	fclose(f);
	gone = s.nr == 1 && s.v[0].unloaded;
	check(reloaded && gone,
	      "a module loaded again beside its kept tags is not unloaded; it is once both are");
	alloc_sites_free(&s);
}

static void test_snapshot_roundtrip(void)
{
	struct alloc_sites s, back;
	struct parse_error err;
	size_t i, same = 0;
	FILE *f = tmpfile();

	parse_allocinfo_file("allocinfo-6.12", &s, &err);
	s.time = 1700000000.25;
	alloc_sites_find(&s, "fs/ext4/super.c:1396 [ext4] func:ext4_alloc_inode")->unloaded = true;
	snapshot_write(f, &s);
	rewind(f);
	alloc_sites_init(&back);
	check(!allocinfo_parse(f, &back, &err) && back.nr == s.nr,
	      "a snapshot reads back, every site");
	for (i = 0; i < s.nr; i++) {
		struct alloc_site *b = alloc_sites_find(&back, s.v[i].tag);

		same += b && b->bytes == s.v[i].bytes &&
			b->calls == s.v[i].calls && b->unloaded == s.v[i].unloaded;
	}
	check(same == s.nr, "... with the same figures and unloaded marks");
	check(fabs(back.time - s.time) < 0.001, "... and the time it was taken");
	fclose(f);
	alloc_sites_free(&s);
	alloc_sites_free(&back);
}

static void test_diff(void)
{
	struct alloc_sites old, new;
	struct parse_error err;
	struct site_change *v;
	size_t nr, i;
	bool ordered = true;

	parse_allocinfo_file("guest/before", &old, &err);
	parse_allocinfo_file("guest/after", &new, &err);
	v = alloc_sites_diff(&old, &new, &nr);
	check(nr > 1 &&
	      strstr(v[0].tag, "codetag_test_leak.c:28 [codetag_test_leak] func:leak_pages") &&
	      v[0].new_bytes - v[0].old_bytes == 512 * 4096,
	      "diff of the recorded snapshots: the leaking line first, grown by 512 pages");
	for (i = 1; i < nr; i++)
		ordered &= llabs(v[i - 1].new_bytes - v[i - 1].old_bytes) >=
			   llabs(v[i].new_bytes - v[i].old_bytes);
	check(ordered, "... the others after it, by the size of their change");
	free(v);

	/* A site only before: its module is gone; only after: it is new. */
	alloc_sites_add(&old, "x.c:1 [gone] func:f")->bytes = 10;
	alloc_sites_add(&new, "y.c:2 [fresh] func:g")->bytes = 20;
	v = alloc_sites_diff(&old, &new, &nr);
	for (i = 0; i < nr && strcmp(v[i].tag, "x.c:1 [gone] func:f"); i++)
		;
	check(i < nr && v[i].in_old && !v[i].in_new && v[i].new_bytes == 0,
	      "... a site that went with its module is listed as gone");
	for (i = 0; i < nr && strcmp(v[i].tag, "y.c:2 [fresh] func:g"); i++)
		;
	check(i < nr && !v[i].in_old && v[i].in_new && v[i].old_bytes == 0,
	      "... a site that came with one, as new");
	free(v);
	alloc_sites_free(&old);
	alloc_sites_free(&new);
}

#define READINGS 12

/*
 * Readings of four sites written as "codetag watch" does: one that grows
 * by a page each time, one that goes up and down, one that never moves,
 * one whose module goes away half-way.
 */
static void test_watch_roundtrip(void)
{
	static const char *const names[] = {
		"mm/leak.c:1 func:leaky", "mm/cache.c:2 func:cachy",
		"mm/still.c:3 func:still", "m.c:4 [mod] func:gone",
	};
	long long want[4][READINGS], *got;
	struct alloc_sites prev, cur;
	struct watch_series w;
	struct parse_error err;
	struct leak *leaks;
	size_t nr, i, r, rows = 0;
	char line[512];
	bool same = true;
	FILE *f = tmpfile();

	watch_csv_header(f);
	alloc_sites_init(&prev);
	for (r = 0; r < READINGS; r++) {
		alloc_sites_init(&cur);
		cur.time = 1000 + 2.0 * r;
		want[0][r] = 4096 * (r + 1);
		want[1][r] = 8192 + (r % 2 ? 4096 : 0);
		want[2][r] = 65536;
		want[3][r] = r < READINGS / 2 ? 512 * (long long)r : 0;
		for (i = 0; i < 4; i++) {
			if (i == 3 && r >= READINGS / 2)
				continue;
			alloc_sites_add(&cur, names[i])->bytes = want[i][r];
		}
		watch_csv_sample(f, r ? &prev : NULL, &cur);
		alloc_sites_free(&prev);
		prev = cur;
	}
	alloc_sites_free(&prev);
	rewind(f);
	while (fgets(line, sizeof(line), f))
		rows++;
	/* header, a total per reading, 4 sites at first, then the changes */
	check(rows == 1 + READINGS + 4 + 2 * (READINGS - 1) + (READINGS / 2 - 1) + 1,
	      "a recording has a row per reading and per change only (%zu rows)",
	      rows);
	rewind(f);
	check(!watch_csv_parse(f, &w, &err) && w.nr_samples == READINGS,
	      "... it reads back, %d readings", READINGS);
	check(w.nr_sites == 3, "... the sites that changed: all but the still one");
	for (i = 0; i < w.nr_sites; i++) {
		for (r = 0; r < 4 && strcmp(names[r], w.site[i]); r++)
			;
		got = series_bytes(&w, i);
		same &= r < 4 && !memcmp(got, want[r], sizeof(want[r]));
	}
	check(same, "... every site's bytes at every reading as recorded");
	check(w.time[READINGS - 1] == 2.0 * (READINGS - 1),
	      "... at their times, from the first reading");

	leaks = leaks_rank(&w, &nr);
	check(nr >= 1 && !strcmp(w.site[leaks[0].site], names[0]) &&
	      leaks[0].steps == READINGS - 1 && leaks[0].first == 0,
	      "leaks: the site that grew at each reading is first, %d steps",
	      READINGS - 1);
	check(nr >= 1 && fabs(leaks[0].rate - 2048) < 0.001 &&
	      leaks[0].growth == 4096 * (READINGS - 1),
	      "... growing 4096 bytes each 2 s: 2048 bytes a second");
	for (i = 0; i < nr && strcmp(w.site[leaks[i].site], names[1]); i++)
		;
	check(i == nr || leaks[i].steps <= 1,
	      "... the one that goes up and down has at most one step");
	for (i = 0; i < nr && strcmp(w.site[leaks[i].site], names[3]); i++)
		;
	check(i == nr, "... the one whose module went away is not listed");
	free(leaks);
	watch_series_free(&w);
	fclose(f);
}

static void test_recorded_watch(void)
{
	struct watch_series w;
	struct parse_error err;
	struct leak *leaks;
	size_t nr;
	FILE *f = open_data("guest/watch.csv");
	int ret = watch_csv_parse(f, &w, &err);

	check(!ret && w.nr_samples >= 20,
	      "the guest's recording reads back (%zu readings)", w.nr_samples);
	fclose(f);
	leaks = leaks_rank(&w, &nr);
	check(nr && strstr(w.site[leaks[0].site], "func:leak_pages") &&
	      leaks[0].steps >= LEAK_TRUST_STEPS,
	      "... leaks ranks the leaking line first, with a trusted trend");
	check(nr > 1 && strstr(w.site[leaks[1].site], "func:leak_objects"),
	      "... the leaking objects next (%s)", nr > 1 ? w.site[leaks[1].site] : "-");
	free(leaks);
	watch_series_free(&w);
}

static void test_dynamic_faults(void)
{
	struct fault_point *v;
	struct parse_error err;
	size_t nr, i, armed = 0;
	FILE *f = open_data("guest/dynamic_faults");
	size_t lines = lines_with(f, "");

	check(!dynamic_faults_parse(f, &v, &nr, &err) && nr == lines,
	      "the guest's dynamic_faults parses, %zu points", lines);
	fclose(f);
	for (i = 0; i < nr; i++)
		armed += v[i].armed;
	for (i = 0; i < nr && !strstr(v[i].site, "func:fault_repeat"); i++)
		;
	check(armed == 1 && i < nr && v[i].armed && v[i].hits == 1000 &&
	      v[i].faults == 10 && !strcmp(v[i].class, "memory") &&
	      !strcmp(v[i].policy, "enabled frequency:100"),
	      "... its one armed point, with its policy, hits and faults");
	fault_points_free(v, nr);
}

static void test_time_stats(void)
{
	struct latency_site *v;
	struct parse_error err;
	size_t nr, i;
	FILE *f = open_data("guest/time_stats");
	size_t blocks = lines_with(f, "count:");

	check(!time_stats_parse(f, &v, &nr, &err) && nr == blocks,
	      "the guest's time_stats parses, %zu sites", blocks);
	fclose(f);
	for (i = 0; i < nr && !strstr(v[i].site, "func:wait_10ms"); i++)
		;
	/* The test module's 20 waits for a 10 ms timer. */
	check(i < nr && v[i].count == 20 && v[i].min >= 10000000 &&
	      v[i].quantiles[7] >= v[i].min && v[i].quantiles[14] <= v[i].max &&
	      v[i].quantiles[7] % 1000 == 0,
	      "... the 10 ms waits: 20, in nanoseconds, quantiles within min and max");
	latency_sites_free(v, nr);

	/* As make demo printed it: the max in ms, the quantiles in us. */
	f = stream_of("fs/pipe.c:378 module:pipe func:pipe_read\n"
		      "count:          7\n"
		      "rate:           1/sec\n"
		      "frequency:      289 ms\n"
		      "avg duration:   74771 us\n"
		      "min duration:   304 us\n"
		      "max duration:   340 ms\n"
		      "stddev:         117 ms\n"
		      "quantiles (us): 304 304 304 304 304 304 7733 7733 7733 7733 7733 7733 340015 340015 340015\n"
		      "\n");
	check(!time_stats_parse(f, &v, &nr, &err) && nr == 1 &&
	      v[0].max == 340015000,
	      "a max rounded down to 340 ms is at least its largest quantile, 340015 us");
	fclose(f);
	latency_sites_free(v, nr);
}

static void test_error_codes(void)
{
	struct error_site *v;
	struct parse_error err;
	size_t nr, i;
	FILE *f = open_data("guest/error_codes");
	size_t lines = lines_with(f, "");

	check(!error_codes_parse(f, &v, &nr, &err) && nr == lines,
	      "the guest's error_codes parses, %zu sites", lines);
	fclose(f);
	for (i = 0; i < nr && !(strstr(v[i].site, "func:shmem_parse_one") &&
				v[i].returned); i++)
		;
	check(i < nr && !strcmp(v[i].class, "-EINVAL") && v[i].code <= -1024,
	      "... tmpfs' refused size, an -EINVAL with a unique code");
	error_sites_free(v, nr);
}

enum parser { ALLOCINFO, WATCH, FAULTS, TIME_STATS, ERROR_CODES };

/* @parser's verdict on @file: 0, or -1 with @err filled in. */
static int parse_file(enum parser parser, const char *file,
		      struct parse_error *err)
{
	struct alloc_sites s;
	struct watch_series w;
	struct fault_point *fp;
	struct latency_site *ls;
	struct error_site *es;
	FILE *f = open_data(file);
	size_t nr;
	int ret = -1;

	memset(err, 0, sizeof(*err));
	switch (parser) {
	case ALLOCINFO:
		alloc_sites_init(&s);
		ret = allocinfo_parse(f, &s, err);
		alloc_sites_free(&s);
		break;
	case WATCH:
		ret = watch_csv_parse(f, &w, err);
		if (!ret)
			watch_series_free(&w);
		break;
	case FAULTS:
		ret = dynamic_faults_parse(f, &fp, &nr, err);
		if (!ret)
			fault_points_free(fp, nr);
		break;
	case TIME_STATS:
		ret = time_stats_parse(f, &ls, &nr, err);
		if (!ret)
			latency_sites_free(ls, nr);
		break;
	case ERROR_CODES:
		ret = error_codes_parse(f, &es, &nr, err);
		if (!ret)
			error_sites_free(es, nr);
		break;
	}
	fclose(f);
	return ret;
}

/* Each file of malformed/ breaks one rule at a known line. */
static void test_malformed(void)
{
	static const struct {
		enum parser parser;
		const char *file;
		unsigned long line;
		const char *what;
	} cases[] = {
		{ ALLOCINFO, "allocinfo-calls", 4, "allocinfo with calls that are not a number" },
		{ ALLOCINFO, "allocinfo-line", 4, "allocinfo with a site without its line" },
		{ ALLOCINFO, "allocinfo-module", 2, "allocinfo with an unclosed [module" },
		{ ALLOCINFO, "allocinfo-func", 2, "allocinfo with a site without func:" },
		{ ALLOCINFO, "allocinfo-empty", 0, "an empty allocinfo" },
		{ WATCH, "watch-quote.csv", 5, "a recording with an unterminated quote" },
		{ WATCH, "watch-header.csv", 1, "a recording with another header" },
		{ WATCH, "watch-outside.csv", 2, "a site's row before any reading" },
		{ WATCH, "watch-backwards.csv", 3, "a recording whose time goes backwards" },
		{ WATCH, "watch-bytes.csv", 3, "bytes that are not a number" },
		{ FAULTS, "dynamic_faults", 2, "a fault point without its state" },
		{ TIME_STATS, "time_stats-missing", 11, "a latency site without its max" },
		{ TIME_STATS, "time_stats-quantiles", 9, "14 quantiles" },
		{ ERROR_CODES, "error_codes", 2, "a count of returns that is not a number" },
	};
	struct parse_error err;
	char file[256];
	size_t i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		snprintf(file, sizeof(file), "malformed/%s", cases[i].file);
		ret = parse_file(cases[i].parser, file, &err);
		check(ret && err.line == cases[i].line && err.msg[0],
		      "%s is refused at line %lu (said: %lu: %s)", cases[i].what,
		      cases[i].line, err.line, err.msg);
	}
}

static void test_human_bytes(void)
{
	char buf[32], b2[32], b3[32], b4[32];

	human_bytes(buf, sizeof(buf), 1023);
	human_bytes(b2, sizeof(b2), 1536);
	human_bytes(b3, sizeof(b3), 2 * 1048576);
	human_bytes(b4, sizeof(b4), -300 * 1024);
	check(!strcmp(buf, "1023B") && !strcmp(b2, "1.5KiB") &&
	      !strcmp(b3, "2.0MiB") && !strcmp(b4, "-300KiB"),
	      "sizes print in binary units: %s %s %s %s", buf, b2, b3, b4);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test-sites DATA_DIR\n");
		return 2;
	}
	data = argv[1];
	test_upstream_allocinfo();
	test_upstream_recorded();
	test_guest_allocinfo();
	test_unloaded_and_reloaded();
	test_snapshot_roundtrip();
	test_diff();
	test_watch_roundtrip();
	test_recorded_watch();
	test_dynamic_faults();
	test_time_stats();
	test_error_codes();
	test_malformed();
	test_human_bytes();
	return failed;
}
