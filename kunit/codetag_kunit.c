// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the code tag registry: registration, iteration and its
 * resumption, the shared text form, and the shared query language.
 *
 * The tags below live in the codetag_test section of vmlinux (or of this
 * module); nothing else may use that section while the suite runs.
 */

#include <kunit/test.h>
#include <linux/codetag/codetag.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/seq_buf.h>
#include <linux/slab.h>
#include <linux/string.h>

struct test_tag {
	struct codetag ct;
	const char *class;
	unsigned long hits;
};

static_assert(sizeof(struct test_tag) % 8 == 0);

/* A tag at the line this is expanded at, which is stored in *line. */
#define TEST_TAG(cls, line) ({						\
	CODETAG_DEFINE(struct test_tag, _tag, codetag_test, .class = cls); \
	*(line) = __LINE__;						\
	&_tag;								\
})

/* Each function is one call site. */
static struct test_tag *tag_alpha(unsigned int *line)
{
	return TEST_TAG("memory", line);
}

static struct test_tag *tag_beta(unsigned int *line)
{
	return TEST_TAG("memory:slab", line);
}

static struct test_tag *tag_gamma(unsigned int *line)
{
	return TEST_TAG("myfs:meta:read", line);
}

static struct test_tag *tag_delta(unsigned int *line)
{
	return TEST_TAG("myfs", line);
}

static struct test_tag *tag_epsilon(unsigned int *line)
{
	return TEST_TAG("myfsx", line);
}

/* Two sites in one function: two tags, whatever the number of calls. */
static struct test_tag *tag_pair(bool second)
{
	unsigned int line;

	if (second)
		return TEST_TAG("io", &line);
	return TEST_TAG("io", &line);
}

#define NR_TEST_TAGS	7

struct codetag_test_ctx {
	struct codetag_type *cttype;
	struct test_tag *tags[NR_TEST_TAGS];
	unsigned int lines[NR_TEST_TAGS];
};

static const char *test_tag_class(const struct codetag *ct)
{
	return container_of(ct, struct test_tag, ct)->class;
}

CODETAG_DEFINE_BOUNDS(codetag_test);

static const struct codetag_type_desc test_desc = {
	CODETAG_TYPE_INIT(codetag_test),
	.tag_size	= sizeof(struct test_tag),
	.tag_class	= test_tag_class,
};

static int codetag_test_init(struct kunit *test)
{
	struct codetag_test_ctx *ctx;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->tags[0] = tag_alpha(&ctx->lines[0]);
	ctx->tags[1] = tag_beta(&ctx->lines[1]);
	ctx->tags[2] = tag_gamma(&ctx->lines[2]);
	ctx->tags[3] = tag_delta(&ctx->lines[3]);
	ctx->tags[4] = tag_epsilon(&ctx->lines[4]);
	ctx->tags[5] = tag_pair(false);
	ctx->tags[6] = tag_pair(true);
	ctx->lines[5] = ctx->tags[5]->ct.lineno;
	ctx->lines[6] = ctx->tags[6]->ct.lineno;

	ctx->cttype = codetag_register_type(&test_desc);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(ctx->cttype), "register: %ld",
			       PTR_ERR(ctx->cttype));
	test->priv = ctx;
	return 0;
}

static void codetag_test_exit(struct kunit *test)
{
	struct codetag_test_ctx *ctx = test->priv;
	int i;

	for (i = 0; i < NR_TEST_TAGS; i++)
		ctx->tags[i]->hits = 0;
	codetag_unregister_type(ctx->cttype);
}

/* Iterate every tag, recording them; returns how many. */
static int collect_tags(struct codetag_type *cttype, struct codetag **out,
			int max)
{
	struct codetag_iterator iter;
	struct codetag *ct;
	int n = 0;

	codetag_lock_type(cttype);
	codetag_iter_init(&iter, cttype);
	while ((ct = codetag_next(&iter))) {
		if (n < max)
			out[n] = ct;
		n++;
	}
	codetag_unlock_type(cttype);
	return n;
}

static void codetag_test_iterate_finds_declared_tags(struct kunit *test)
{
	struct codetag_test_ctx *ctx = test->priv;
	struct codetag *seen[NR_TEST_TAGS + 4];
	int n, i, j, found;

	n = collect_tags(ctx->cttype, seen, ARRAY_SIZE(seen));
	KUNIT_ASSERT_EQ(test, n, NR_TEST_TAGS);

	for (i = 0; i < NR_TEST_TAGS; i++) {
		found = 0;
		for (j = 0; j < n; j++)
			found += seen[j] == &ctx->tags[i]->ct;
		KUNIT_EXPECT_EQ_MSG(test, found, 1, "tag %d at line %u", i,
				    ctx->lines[i]);
	}
	/* One section, iterated in its order: ascending addresses. */
	for (j = 1; j < n; j++)
		KUNIT_EXPECT_LT(test, (unsigned long)seen[j - 1],
				(unsigned long)seen[j]);
	/* A site is one tag however often it runs. */
	KUNIT_EXPECT_PTR_EQ(test, tag_pair(true), ctx->tags[6]);
	KUNIT_EXPECT_PTR_NE(test, tag_pair(false), tag_pair(true));
}

static void codetag_test_iterate_resume_everywhere(struct kunit *test)
{
	struct codetag_test_ctx *ctx = test->priv;
	struct codetag *all[NR_TEST_TAGS], *ct;
	struct codetag_iterator iter;
	int n, stop, i;

	n = collect_tags(ctx->cttype, all, ARRAY_SIZE(all));
	KUNIT_ASSERT_EQ(test, n, NR_TEST_TAGS);

	for (stop = 0; stop <= n; stop++) {
		codetag_iter_init(&iter, ctx->cttype);
		codetag_lock_type(ctx->cttype);
		for (i = 0; i < stop; i++)
			KUNIT_EXPECT_PTR_EQ(test, codetag_next(&iter), all[i]);
		codetag_unlock_type(ctx->cttype);

		/* As a seq_file reader does: relock, re-read, go on. */
		codetag_lock_type(ctx->cttype);
		ct = codetag_iter_current(&iter);
		KUNIT_EXPECT_PTR_EQ(test, ct, stop ? all[stop - 1] : all[0]);
		i = stop ? stop : 1;
		while ((ct = codetag_next(&iter))) {
			KUNIT_EXPECT_LT(test, i, n);
			if (i < n)
				KUNIT_EXPECT_PTR_EQ(test, ct, all[i]);
			i++;
		}
		codetag_unlock_type(ctx->cttype);
		KUNIT_EXPECT_EQ_MSG(test, i, n, "stopped after %d", stop);
		/* Past the end stays past the end. */
		codetag_lock_type(ctx->cttype);
		KUNIT_EXPECT_NULL(test, codetag_next(&iter));
		KUNIT_EXPECT_NULL(test, codetag_iter_current(&iter));
		codetag_unlock_type(ctx->cttype);
	}
}

static void codetag_test_register_errors(struct kunit *test)
{
	struct codetag_test_ctx *ctx = test->priv;
	struct codetag_type_desc desc = test_desc;

	/* The name already has a type: the one init registered. */
	KUNIT_EXPECT_EQ(test, PTR_ERR(codetag_register_type(&desc)), -EBUSY);

	desc.name = NULL;
	KUNIT_EXPECT_EQ(test, PTR_ERR(codetag_register_type(&desc)), -EINVAL);
	desc.name = "";
	KUNIT_EXPECT_EQ(test, PTR_ERR(codetag_register_type(&desc)), -EINVAL);
	/* One character too long for a module section's type name. */
	desc.name = "codetag_test_name_of_32_chars_xx";
	KUNIT_EXPECT_EQ(test, strlen(desc.name), 32);
	KUNIT_EXPECT_EQ(test, PTR_ERR(codetag_register_type(&desc)), -EINVAL);

	desc = test_desc;
	desc.tag_size = sizeof(struct test_tag) + 4;
	KUNIT_EXPECT_EQ(test, PTR_ERR(codetag_register_type(&desc)), -EINVAL);
	desc.tag_size = sizeof(struct codetag) - 8;
	KUNIT_EXPECT_EQ(test, PTR_ERR(codetag_register_type(&desc)), -EINVAL);

	KUNIT_EXPECT_STREQ(test, codetag_type_name(ctx->cttype), "codetag_test");
}

/* A type whose tags are all in modules has none in vmlinux. */
static void codetag_test_register_no_tags(struct kunit *test)
{
	struct codetag_type_desc desc = {
		.name = "codetag_test_none",
		.tag_size = sizeof(struct test_tag),
		.vmlinux = { .modname = "vmlinux" },
	};
	struct codetag_iterator iter;
	struct codetag_type *cttype;

	cttype = codetag_register_type(&desc);
	KUNIT_ASSERT_FALSE(test, IS_ERR(cttype));
	KUNIT_EXPECT_STREQ(test, codetag_type_name(cttype), "codetag_test_none");
	codetag_lock_type(cttype);
	codetag_iter_init(&iter, cttype);
	KUNIT_EXPECT_NULL(test, codetag_next(&iter));
	codetag_unlock_type(cttype);
	codetag_unregister_type(cttype);
}

static void codetag_test_format(struct kunit *test)
{
	struct codetag_test_ctx *ctx = test->priv;
	struct codetag copy = ctx->tags[0]->ct;
	char buf[160], want[160];
	struct seq_buf s;

	seq_buf_init(&s, buf, sizeof(buf) - 1);
	codetag_to_text(&s, &ctx->tags[0]->ct);
	buf[seq_buf_used(&s)] = '\0';
	snprintf(want, sizeof(want),
		 "lib/codetag/kunit/codetag_kunit.c:%u module:codetag_kunit func:tag_alpha",
		 ctx->lines[0]);
	KUNIT_EXPECT_STREQ(test, buf, want);

	/* The path is relative to the tree, whatever the build directory. */
	KUNIT_EXPECT_STREQ(test, ctx->tags[0]->ct.filename, __FILE__);

	copy.flags |= CODETAG_FLAG_UNLOADED;
	seq_buf_init(&s, buf, sizeof(buf) - 1);
	codetag_to_text(&s, &copy);
	buf[seq_buf_used(&s)] = '\0';
	strlcat(want, " [unloaded]", sizeof(want));
	KUNIT_EXPECT_STREQ(test, buf, want);
}

/* ---- Parser ---- */

struct parse_case {
	const char *input;
	int nr_cmds;
	const char *file, *func, *module, *class;
	unsigned int first_line, last_line, first_index, last_index;
	int nr_words;
	const char *word0, *word1;
};

static const struct parse_case accepted[] = {
	{ "file mm/slub.c enable", 1, .file = "mm/slub.c", .last_line = UINT_MAX,
	  .last_index = UINT_MAX, .nr_words = 1, .word0 = "enable" },
	{ "file slub.c line 1826 disable", 1, .file = "slub.c", .first_line = 1826,
	  .last_line = 1826, .last_index = UINT_MAX, .nr_words = 1,
	  .word0 = "disable" },
	{ "func alloc_* line 10-20 frequency 100", 1, .func = "alloc_*",
	  .first_line = 10, .last_line = 20, .last_index = UINT_MAX,
	  .nr_words = 2, .word0 = "frequency", .word1 = "100" },
	{ "module xfs class memory oneshot", 1, .module = "xfs",
	  .class = "memory", .last_line = UINT_MAX, .last_index = UINT_MAX,
	  .nr_words = 1, .word0 = "oneshot" },
	{ "index 3 reset", 1, .first_index = 3, .last_index = 3,
	  .last_line = UINT_MAX, .nr_words = 1, .word0 = "reset" },
	{ "index 0-9 module ?fs reset", 1, .module = "?fs", .first_index = 0,
	  .last_index = 9, .last_line = UINT_MAX, .nr_words = 1,
	  .word0 = "reset" },
	{ "file \"a b.c\" enable", 1, .file = "a b.c", .last_line = UINT_MAX,
	  .last_index = UINT_MAX, .nr_words = 1, .word0 = "enable" },
	{ "  \tfile x.c   line 5   enable  # comment; not a command", 1,
	  .file = "x.c", .first_line = 5, .last_line = 5,
	  .last_index = UINT_MAX, .nr_words = 1, .word0 = "enable" },
	{ "enable", 1, .last_line = UINT_MAX, .last_index = UINT_MAX,
	  .nr_words = 1, .word0 = "enable" },
	{ "file a.c enable; file b.c disable", 2, .file = "a.c",
	  .last_line = UINT_MAX, .last_index = UINT_MAX, .nr_words = 1,
	  .word0 = "enable" },
	{ "func f enable\nfunc g disable\n\n;;", 2, .func = "f",
	  .last_line = UINT_MAX, .last_index = UINT_MAX, .nr_words = 1,
	  .word0 = "enable" },
};

static void expect_str_or_null(struct kunit *test, const char *input,
			       const char *got, const char *want)
{
	if (want)
		KUNIT_EXPECT_STREQ_MSG(test, got, want, "'%s'", input);
	else
		KUNIT_EXPECT_NULL_MSG(test, got, "'%s'", input);
}

static void codetag_test_parse_accepts(struct kunit *test)
{
	struct codetag_command cmds[4];
	char buf[128];
	int i, n;

	for (i = 0; i < ARRAY_SIZE(accepted); i++) {
		const struct parse_case *c = &accepted[i];
		const struct codetag_query *q = &cmds[0].query;

		strscpy(buf, c->input, sizeof(buf));
		n = codetag_parse_commands(buf, cmds, ARRAY_SIZE(cmds));
		KUNIT_EXPECT_EQ_MSG(test, n, c->nr_cmds, "'%s'", c->input);
		if (n != c->nr_cmds)
			continue;
		expect_str_or_null(test, c->input, q->filename, c->file);
		expect_str_or_null(test, c->input, q->function, c->func);
		expect_str_or_null(test, c->input, q->module, c->module);
		expect_str_or_null(test, c->input, q->class, c->class);
		KUNIT_EXPECT_EQ_MSG(test, q->first_line, c->first_line, "'%s'", c->input);
		KUNIT_EXPECT_EQ_MSG(test, q->last_line, c->last_line, "'%s'", c->input);
		KUNIT_EXPECT_EQ_MSG(test, q->first_index, c->first_index, "'%s'", c->input);
		KUNIT_EXPECT_EQ_MSG(test, q->last_index, c->last_index, "'%s'", c->input);
		KUNIT_EXPECT_EQ_MSG(test, cmds[0].nr_words, c->nr_words, "'%s'", c->input);
		if (cmds[0].nr_words >= 1)
			KUNIT_EXPECT_STREQ(test, cmds[0].words[0], c->word0);
		if (cmds[0].nr_words >= 2)
			KUNIT_EXPECT_STREQ(test, cmds[0].words[1], c->word1);
	}

	/* The second command of a pair is parsed on its own. */
	strscpy(buf, "file a.c enable; module b line 3-4 disable now", sizeof(buf));
	KUNIT_ASSERT_EQ(test, codetag_parse_commands(buf, cmds, 4), 2);
	KUNIT_EXPECT_NULL(test, cmds[1].query.filename);
	KUNIT_EXPECT_STREQ(test, cmds[1].query.module, "b");
	KUNIT_EXPECT_EQ(test, cmds[1].query.first_line, 3U);
	KUNIT_EXPECT_EQ(test, cmds[1].query.last_line, 4U);
	KUNIT_EXPECT_EQ(test, cmds[1].nr_words, 2);
	KUNIT_EXPECT_STREQ(test, cmds[1].words[1], "now");
}

static const char *const rejected[] = {
	"",
	"\t\n\t;\t",
	"# only a comment",
	"file",
	"file a.c func",
	"file a.c file b.c enable",
	"func f func g enable",
	"module m module n enable",
	"class c class d enable",
	"line",
	"file x.c line",
	"line 0 enable",
	"line abc enable",
	"line 5-3 enable",
	"line 1- enable",
	"line -4 enable",
	"line 1-2-3 enable",
	"line 4294967296 enable",
	"line 1 line 2 enable",
	"index x enable",
	"index 9-1 enable",
	"index 1 index 2 enable",
	"file \"a.c enable",
	"file 'a.c enable",
	"file \"a\"b enable",
	"file a.c enable; line nope enable",
	"a b c d e f g h i j k l m n o p q r s t u v w x y z",
};

static void codetag_test_parse_rejects(struct kunit *test)
{
	struct codetag_command cmds[4];
	char buf[128];
	int i;

	for (i = 0; i < ARRAY_SIZE(rejected); i++) {
		strscpy(buf, rejected[i], sizeof(buf));
		KUNIT_EXPECT_EQ_MSG(test, codetag_parse_commands(buf, cmds, 4),
				    -EINVAL, "'%s'", rejected[i]);
	}
}

/* One selector against tag_alpha, which is in class "memory". */
struct match_case {
	const char *file, *func, *module, *class;
	bool by_line;
	int line_from, line_to;	/* relative to tag_alpha's line */
	unsigned int index_from, index_to, index;
	const char *tag_class;
	bool match;
};

static const struct match_case match_cases[] = {
	{ .match = true },
	{ .file = "lib/codetag/kunit/codetag_kunit.c", .match = true },
	{ .file = "codetag_kunit.c", .match = true },
	{ .file = "lib/*/codetag_kun?t.c", .match = true },
	{ .file = "kunit/codetag_kunit.c", .match = false },
	{ .file = "codetag.c", .match = false },
	{ .func = "tag_alpha", .match = true },
	{ .func = "tag_*", .match = true },
	{ .func = "tag_beta", .match = false },
	{ .module = "codetag_kunit", .match = true },
	{ .module = "codetag", .match = false },
	{ .by_line = true, .line_from = 0, .line_to = 0, .match = true },
	{ .by_line = true, .line_from = -1, .line_to = 9, .match = true },
	{ .by_line = true, .line_from = 1, .line_to = 9, .match = false },
	{ .by_line = true, .line_from = -9, .line_to = -1, .match = false },
	{ .index_from = 2, .index_to = 4, .index = 1, .match = false },
	{ .index_from = 2, .index_to = 4, .index = 2, .match = true },
	{ .index_from = 2, .index_to = 4, .index = 4, .match = true },
	{ .index_from = 2, .index_to = 4, .index = 5, .match = false },
	/* class X matches X and what is below it, at a ':' boundary. */
	{ .class = "myfs", .tag_class = "myfs", .match = true },
	{ .class = "myfs", .tag_class = "myfs:meta", .match = true },
	{ .class = "myfs", .tag_class = "myfs:meta:read", .match = true },
	{ .class = "myfs", .tag_class = "myfsx", .match = false },
	{ .class = "myfs", .tag_class = "my", .match = false },
	{ .class = "myfs", .tag_class = NULL, .match = false },
	{ .class = "myfs:meta", .tag_class = "myfs", .match = false },
	{ .class = "myfs:meta", .tag_class = "myfs:meta:read", .match = true },
	{ .class = "mem*", .tag_class = "memory", .match = true },
};

static void codetag_test_query_match(struct kunit *test)
{
	struct codetag_test_ctx *ctx = test->priv;
	const struct codetag *alpha = &ctx->tags[0]->ct;
	int i;

	for (i = 0; i < ARRAY_SIZE(match_cases); i++) {
		const struct match_case *c = &match_cases[i];
		struct codetag_query q = {
			.filename = c->file,
			.function = c->func,
			.module = c->module,
			.class = c->class,
			.first_line = 0,
			.last_line = UINT_MAX,
			.first_index = 0,
			.last_index = UINT_MAX,
		};

		if (c->by_line) {
			q.first_line = alpha->lineno + c->line_from;
			q.last_line = alpha->lineno + c->line_to;
		}
		if (c->index_to) {
			q.first_index = c->index_from;
			q.last_index = c->index_to;
		}
		KUNIT_EXPECT_EQ_MSG(test, codetag_query_match(&q, alpha,
							      c->tag_class,
							      c->index),
				    c->match, "case %d", i);
	}
}

/* ---- Control: parse everything, then apply everything or nothing ---- */

struct test_action {
	unsigned long add;
};

static int test_parse_action(void *action, char **words, int nr_words)
{
	struct test_action *a = action;

	if (nr_words == 1 && !strcmp(words[0], "hit")) {
		a->add = 1;
		return 0;
	}
	if (nr_words == 2 && !strcmp(words[0], "add") &&
	    !kstrtoul(words[1], 10, &a->add))
		return 0;
	return -EINVAL;
}

static void test_apply_action(struct codetag *ct, const void *action)
{
	const struct test_action *a = action;

	container_of(ct, struct test_tag, ct)->hits += a->add;
}

static const struct codetag_control_ops test_ops = {
	.action_size	= sizeof(struct test_action),
	.parse		= test_parse_action,
	.apply		= test_apply_action,
};

static ssize_t control_ops(struct codetag_test_ctx *ctx,
			   const struct codetag_control_ops *ops, const char *cmd)
{
	char *buf = kstrdup(cmd, GFP_KERNEL);
	ssize_t ret;

	if (!buf)
		return -ENOMEM;
	ret = codetag_control_apply(ctx->cttype, ops, buf);
	kfree(buf);
	return ret;
}

static ssize_t control(struct codetag_test_ctx *ctx, const char *cmd)
{
	return control_ops(ctx, &test_ops, cmd);
}

static unsigned long total_hits(struct codetag_test_ctx *ctx)
{
	unsigned long sum = 0;
	int i;

	for (i = 0; i < NR_TEST_TAGS; i++)
		sum += ctx->tags[i]->hits;
	return sum;
}

static void codetag_test_control_apply(struct kunit *test)
{
	struct codetag_test_ctx *ctx = test->priv;
	char cmd[96];

	KUNIT_EXPECT_EQ(test, control(ctx, "func tag_alpha hit"), 1);
	KUNIT_EXPECT_EQ(test, ctx->tags[0]->hits, 1UL);
	KUNIT_EXPECT_EQ(test, total_hits(ctx), 1UL);

	KUNIT_EXPECT_EQ(test, control(ctx, "func tag_pair add 10"), 2);
	KUNIT_EXPECT_EQ(test, ctx->tags[5]->hits, 10UL);
	KUNIT_EXPECT_EQ(test, ctx->tags[6]->hits, 10UL);

	snprintf(cmd, sizeof(cmd), "file codetag_kunit.c line %u hit",
		 ctx->lines[1]);
	KUNIT_EXPECT_EQ(test, control(ctx, cmd), 1);
	KUNIT_EXPECT_EQ(test, ctx->tags[1]->hits, 1UL);

	/* class memory: memory and memory:slab, not myfs. */
	KUNIT_EXPECT_EQ(test, control(ctx, "class memory hit"), 2);
	KUNIT_EXPECT_EQ(test, ctx->tags[0]->hits, 2UL);
	KUNIT_EXPECT_EQ(test, ctx->tags[1]->hits, 2UL);
	KUNIT_EXPECT_EQ(test, control(ctx, "class myfs hit"), 2);
	KUNIT_EXPECT_EQ(test, ctx->tags[4]->hits, 0UL);

	/* Every tag, by index and without selectors. */
	KUNIT_EXPECT_EQ(test, control(ctx, "index 0-6 hit"), NR_TEST_TAGS);
	KUNIT_EXPECT_EQ(test, control(ctx, "hit"), NR_TEST_TAGS);
	KUNIT_EXPECT_EQ(test, control(ctx, "func tag_alpha hit; func tag_beta hit\n"), 2);
}

static void codetag_test_control_all_or_nothing(struct kunit *test)
{
	struct codetag_test_ctx *ctx = test->priv;
	struct codetag_type_desc no_class = test_desc;
	static const char *const bad[] = {
		"func tag_alpha hit; func tag_beta frobnicate",
		"func tag_alpha hit; func tag_beta add x",
		"func tag_alpha hit\nline 0 hit",
		"func tag_alpha hit; file",
		"func tag_alpha",
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test, control(ctx, bad[i]), -EINVAL,
				    "'%s'", bad[i]);
	KUNIT_EXPECT_EQ(test, total_hits(ctx), 0UL);

	/* A command that matches nothing: -ENOENT, and nothing applied. */
	KUNIT_EXPECT_EQ(test, control(ctx, "func tag_alpha hit; func nosuch hit"),
			-ENOENT);
	KUNIT_EXPECT_EQ(test, control(ctx, "module nosuch hit"), -ENOENT);
	KUNIT_EXPECT_EQ(test, total_hits(ctx), 0UL);

	/* A type without classes refuses the class selector. */
	codetag_unregister_type(ctx->cttype);
	no_class.tag_class = NULL;
	ctx->cttype = codetag_register_type(&no_class);
	KUNIT_ASSERT_FALSE(test, IS_ERR(ctx->cttype));
	KUNIT_EXPECT_EQ(test, control(ctx, "class memory hit"), -EINVAL);
	KUNIT_EXPECT_EQ(test, total_hits(ctx), 0UL);
}

/* Ops whose prepare() fails on tag_beta, as an allocation could. */
static unsigned int test_prepared, test_prepared_at_apply;

static int test_prepare_action(struct codetag *ct, const void *action)
{
	if (!strcmp(ct->function, "tag_beta"))
		return -ENOMEM;
	test_prepared++;
	return 0;
}

static void test_apply_prepared(struct codetag *ct, const void *action)
{
	if (!test_prepared_at_apply)
		test_prepared_at_apply = test_prepared;
	test_apply_action(ct, action);
}

static const struct codetag_control_ops test_prepare_ops = {
	.action_size	= sizeof(struct test_action),
	.parse		= test_parse_action,
	.prepare	= test_prepare_action,
	.apply		= test_apply_prepared,
};

static ssize_t control_prepared(struct codetag_test_ctx *ctx, const char *cmd)
{
	test_prepared = 0;
	test_prepared_at_apply = 0;
	return control_ops(ctx, &test_prepare_ops, cmd);
}

static void codetag_test_control_prepare(struct kunit *test)
{
	struct codetag_test_ctx *ctx = test->priv;

	/* Every match of every command is prepared before any is applied. */
	KUNIT_EXPECT_EQ(test, control_prepared(ctx, "func tag_alpha hit; func tag_pair add 2"), 3);
	KUNIT_EXPECT_EQ(test, test_prepared_at_apply, 3U);
	KUNIT_EXPECT_EQ(test, total_hits(ctx), 5UL);

	/* A failed preparation is the write's error, and nothing is applied. */
	KUNIT_EXPECT_EQ(test, control_prepared(ctx, "func tag_alpha hit; func tag_beta hit"),
			-ENOMEM);
	KUNIT_EXPECT_EQ(test, test_prepared, 1U);
	KUNIT_EXPECT_EQ(test, test_prepared_at_apply, 0U);
	KUNIT_EXPECT_EQ(test, total_hits(ctx), 5UL);
}

static struct kunit_case codetag_test_cases[] = {
	KUNIT_CASE(codetag_test_iterate_finds_declared_tags),
	KUNIT_CASE(codetag_test_iterate_resume_everywhere),
	KUNIT_CASE(codetag_test_register_errors),
	KUNIT_CASE(codetag_test_register_no_tags),
	KUNIT_CASE(codetag_test_format),
	KUNIT_CASE(codetag_test_parse_accepts),
	KUNIT_CASE(codetag_test_parse_rejects),
	KUNIT_CASE(codetag_test_query_match),
	KUNIT_CASE(codetag_test_control_apply),
	KUNIT_CASE(codetag_test_control_all_or_nothing),
	KUNIT_CASE(codetag_test_control_prepare),
	{}
};

static struct kunit_suite codetag_test_suite = {
	.name		= "codetag",
	.init		= codetag_test_init,
	.exit		= codetag_test_exit,
	.test_cases	= codetag_test_cases,
};

kunit_test_suite(codetag_test_suite);

MODULE_DESCRIPTION("KUnit tests for the code tag registry");
MODULE_LICENSE("GPL");
