/*
 * krl report (CPU): a fixture store and results file (fixture.h) rendered
 * through the library and the CLI; the page is well-formed and
 * self-contained (tests/report/check_html.py), carries the fixture's
 * numbers, escapes every outside text, flags a roofline above 1.0 and
 * warns about stitched commits; sources are capped; bad inputs fail
 * clearly.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fixture.h"
#include "krl/report.h"
#include "report/report_int.h"

static char dir[64];

static int setup(void **state)
{
	snprintf(dir, sizeof dir, "/tmp/krl-report-XXXXXX");
	assert_non_null(mkdtemp(dir));
	fx_make(dir);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Renders the fixture through the library into dir/name; returns the page
 * (caller frees). */
static char *render(const char *name, size_t max_source, size_t total)
{
	char db[128], res[128], out[128];
	snprintf(db, sizeof db, "%s/krl.db", dir);
	snprintf(res, sizeof res, "%s/results.jsonl", dir);
	snprintf(out, sizeof out, "%s/%s", dir, name);
	const char *results[] = {res};
	krl_report_opts o = {.db = db, .results = results, .nresults = 1,
	                     .title = "fixture <report>",
	                     .max_source = max_source,
	                     .max_sources_total = total,
	                     .generated = "2026-12-02T00:00:00Z"};
	FILE *f = fopen(out, "w");
	assert_non_null(f);
	krl_diag d = {0};
	KRL_ASSERT_OK(krl_report_write(&o, f, &d), &d);
	assert_int_equal(fclose(f), 0);
	return fx_read(out);
}

static size_t count(const char *z, const char *needle)
{
	size_t n = 0, l = strlen(needle);
	for (const char *p = strstr(z, needle); p; p = strstr(p + l, needle))
		n++;
	return n;
}

/* python3 tests/report/check_html.py on the page: its verdict. */
static void check_wellformed(const char *name)
{
	if (system("command -v python3 >/dev/null 2>&1") != 0) {
		/* the C checks below still run; say plainly what was not */
		printf("note: python3 absent: the tag-balance check did not run\n");
		return;
	}
	char cmd[512];
	snprintf(cmd, sizeof cmd,
	         "python3 tests/report/check_html.py '%s/%s'", dir, name);
	int st = system(cmd);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static void page_carries_the_numbers(void **state)
{
	char *z = render("page.html", 0, 0);
	check_wellformed("page.html");
	/* the speedups with their intervals */
	assert_non_null(strstr(z, "2.345x [2.301, 2.389]"));
	assert_non_null(strstr(z, "1.500x [1.400, 1.600]"));
	/* peers: 1.234 / 0.5, 1.0 / 0.5, 0.75 / 0.5 for relu; best 0.75 */
	assert_non_null(strstr(z, "vs PyTorch eager: 2.468"));
	assert_non_null(strstr(z, "vs CUDA graph of eager: 2.000"));
	assert_non_null(strstr(z, "vs torch.compile: 1.500"));
	assert_non_null(strstr(z, "1.100x")); /* evil: 2.2 / 2.0 */
	assert_non_null(strstr(z, "2.11.0+cu130"));
	/* a failed peer is listed with its error, escaped */
	assert_non_null(strstr(z, "torch_graph</td><td>capture &lt;failed&gt;"));
	/* a problem with peers only is named, not given a speedup */
	assert_non_null(strstr(z, "no kernelrl result in the inputs"));
	/* the baseline and conditions are stated with the chart */
	assert_non_null(strstr(z, "Baseline: <code>krl eager reference</code>"));
	assert_non_null(strstr(z, "precision tier: <code>fp32</code>"));
	assert_non_null(strstr(z, "timing mode: <code>stream</code>"));
	assert_non_null(strstr(z, "shape set: <code>kb1</code>"));
	/* and on the chart itself */
	assert_non_null(strstr(z, "speedup over krl eager reference (x); shapes "
	                          "kb1, precision fp32, timing stream"));
	/* the verdict mix: every verdict, per run and in all */
	assert_non_null(strstr(z, "wrong_output"));
	assert_non_null(strstr(z, "compile_error"));
	assert_non_null(strstr(z, "no_candidate"));
	assert_non_null(strstr(z, "<td>ok</td><td class=\"n\">4</td>"));
	assert_non_null(strstr(z, "<td>compile_error</td><td class=\"n\">2</td>"));
	assert_non_null(strstr(z, "level1/19_relu/builtin/kb1/b6"));
	/* learning curves: one polyline per run with a correct candidate */
	assert_int_equal(count(z, "<g class=\"series\""), 4); /* 2 runs, 2 charts */
	/* roofline above 1.0 flagged, not hidden */
	assert_non_null(strstr(z, "1.370 ceiling wrong"));
	assert_non_null(strstr(z, "0.812</text>"));
	/* stitched commits warned about */
	assert_non_null(strstr(z, "stitch 2 commits"));
	assert_non_null(strstr(z, "aaaa1111"));
	assert_non_null(strstr(z, "NVIDIA H200"));
	assert_non_null(strstr(z, "2026-12-01T10:00:00Z"));
	/* the best candidate: its description, escaped, and its source */
	assert_non_null(strstr(z, "fused &lt;b&gt;relu&lt;/b&gt; &amp; vectorized x4"));
	assert_non_null(strstr(z, "// relu D: vectorized, 8 blocks per SM"));
	assert_null(strstr(z, "slower variant"));
	/* an undescribed candidate falls back to its source's comment */
	assert_non_null(strstr(z, "(from the source) evil: closes the page"));
	free(z);
}

static void outside_text_is_escaped(void **state)
{
	char *z = render("page.html", 0, 0);
	/* the task name, the run name, the title */
	assert_null(strstr(z, "<&>"));
	assert_non_null(strstr(z, "lvl/&lt;&amp;&gt;evil&quot;&#39;"));
	assert_non_null(strstr(z, "evil-run-&lt;&amp;&gt;"));
	assert_non_null(strstr(z, "<title>fixture &lt;report&gt;</title>"));
	/* the source cannot close the page's tags or run anything */
	assert_null(strstr(z, "<script"));
	assert_null(strstr(z, "<img"));
	assert_non_null(strstr(z, "&lt;/code&gt;&lt;/pre&gt;&lt;/details&gt;"
	                          "&lt;script&gt;alert(1)&lt;/script&gt;"));
	/* nothing is fetched: no URL outside escaped text, no src= */
	assert_null(strstr(z, "http://"));
	assert_null(strstr(z, " src=\""));
	assert_null(strstr(z, "url("));
	assert_null(strstr(z, "@import"));
	const char *p = z;
	while ((p = strstr(p, "href=\""))) {
		p += 6;
		assert_int_equal(*p, '#');
	}
	/* "https://" appears only as the escaped text of the evil source */
	assert_int_equal(count(z, "https://"),
	                 count(z, "src=&quot;https://example.com/x.png&quot;"));
	/* balanced blocks (the python check does every tag) */
	assert_int_equal(count(z, "<svg "), count(z, "</svg>"));
	assert_int_equal(count(z, "<details>"), count(z, "</details>"));
	assert_int_equal(count(z, "<table"), count(z, "</table>"));
	free(z);
}

static void sources_are_capped(void **state)
{
	/* 20 bytes a source: every source longer is cut, and said so */
	char *z = render("cut.html", 20, 0);
	check_wellformed("cut.html");
	assert_non_null(strstr(z, "cut here"));
	assert_non_null(strstr(z, "more bytes not embedded]"));
	assert_null(strstr(z, "8 blocks per SM"));
	assert_non_null(strstr(z, "here 2 sources cut"));
	free(z);
	/* 50 bytes in all: the relu source (39) fits, the evil one is left out */
	z = render("total.html", 0, 50);
	check_wellformed("total.html");
	assert_non_null(strstr(z, "8 blocks per SM"));
	assert_non_null(strstr(z, "left out: the page's cap"));
	assert_null(strstr(z, "alert(1)"));
	free(z);
}

/* Runs `$KRL_BIN args` (stderr merged): the exit status, output in *out. */
static int run(const char *args, char **out)
{
	const char *bin = getenv("KRL_BIN");
	char cmd[1024];
	assert_non_null(bin);
	snprintf(cmd, sizeof cmd, "cd '%s' && %s %s 2>&1", dir, bin, args);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	size_t cap = 1 << 16, n = 0, got;
	char *buf = malloc(cap);
	assert_non_null(buf);
	while ((got = fread(buf + n, 1, cap - n - 1, p)) > 0) {
		n += got;
		if (n + 1 >= cap)
			assert_non_null(buf = realloc(buf, cap *= 2));
	}
	buf[n] = 0;
	int st = pclose(p);
	*out = buf;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void cli_writes_the_page(void **state)
{
	char *out, path[128];
	/* krl.db is found in the current folder */
	assert_int_equal(run("report --results results.jsonl cli.html", &out), 0);
	assert_non_null(strstr(out, "wrote cli.html"));
	free(out);
	snprintf(path, sizeof path, "%s/cli.html", dir);
	char *z = fx_read(path);
	assert_non_null(strstr(z, "2.345x [2.301, 2.389]"));
	assert_non_null(strstr(z, "<code>krl.db</code>: 2 runs, 8 evaluations"));
	free(z);
	check_wellformed("cli.html");
	/* results only */
	assert_int_equal(run("report --no-db --results results.jsonl r.html",
	                     &out), 0);
	free(out);
	snprintf(path, sizeof path, "%s/r.html", dir);
	z = fx_read(path);
	assert_non_null(strstr(z, "2.345x [2.301, 2.389]"));
	assert_non_null(strstr(z, "no store given"));
	assert_non_null(strstr(z, "<th>store</th><td>none"));
	assert_null(strstr(z, "<details>"));
	free(z);
	/* usage and input errors */
	assert_int_equal(run("report --no-db r.html", &out), 2);
	assert_non_null(strstr(out, "nothing to report"));
	free(out);
	assert_int_equal(run("report", &out), 2);
	assert_non_null(strstr(out, "usage: krl report"));
	free(out);
	assert_int_equal(run("report --db nosuch.db x.html", &out), 3);
	assert_non_null(strstr(out, "no store at nosuch.db"));
	free(out);
	assert_int_equal(access("nosuch.db", F_OK), -1); /* never created */
	snprintf(path, sizeof path, "%s/bad.jsonl", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("{\"problem\":\"a\"}\n[1, 2]\n", f);
	fclose(f);
	assert_int_equal(run("report --results bad.jsonl bad.html", &out), 3);
	assert_non_null(strstr(out, "bad.jsonl:2: not a JSON object"));
	free(out);
	/* a failed report leaves no page and no temporary file */
	snprintf(path, sizeof path, "%s/bad.html", dir);
	assert_int_equal(access(path, F_OK), -1);
	snprintf(path, sizeof path, "%s/bad.html.tmp", dir);
	assert_int_equal(access(path, F_OK), -1);
}

/* rp_esc: HTML's five specials, and text that is not valid UTF-8 or is a
 * control character becomes '?'; valid characters pass whole. */
static void escape_rules(void **state)
{
	static const struct { const char *in; size_t n; const char *out; } c[] = {
		{"a<b>&\"'", 7, "a&lt;b&gt;&amp;&quot;&#39;"},
		{"tab\tnl\n", 7, "tab\tnl\n"},
		{"bell\a\x7f", 6, "bell??"},
		{"nul\0x", 5, "nul?x"},
		{"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9,
		 "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"},
		{"\xff\xfe", 2, "??"},
		{"\xc0\xaf", 2, "??"},         /* overlong '/' */
		{"\xed\xa0\x80", 3, "???"},    /* a surrogate */
		{"\xf4\x90\x80\x80", 4, "????"}, /* above U+10FFFF */
		{"cut\xe2\x82", 5, "cut??"},   /* ends inside a character */
	};
	for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
		krl_strbuf b = {0};
		rp_esc(&b, c[i].in, c[i].n);
		char *z = krl_strbuf_take(&b);
		assert_non_null(z);
		assert_string_equal(z, c[i].out);
		free(z);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(escape_rules),
		cmocka_unit_test(page_carries_the_numbers),
		cmocka_unit_test(outside_text_is_escaped),
		cmocka_unit_test(sources_are_capped),
		cmocka_unit_test(cli_writes_the_page),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
