/*
 * krl report in headless Chromium (CPU): the fixture report (fixture.h)
 * rendered, its DOM dumped and a screenshot taken, into the build folder
 * ($KRL_REPORT_OUT: report-fixture.html, report-fixture.png,
 * report-fixture.dom.html, report-fixture.chromium.log). The page must
 * load without a console message or a failed request, and the DOM
 * Chromium built must hold the charts and the escaped names. Skips itself
 * (exit 77) where no chromium is installed (scripts/deps.sh --test
 * installs it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fixture.h"
#include "krl/report.h"

static char dir[64], outdir[512], chromium[256];

/* The chromium binary ("chromium" or "chromium-browser"), or 0. */
static int find_chromium(void)
{
	const char *env = getenv("KRL_CHROMIUM");
	if (env && *env) {
		snprintf(chromium, sizeof chromium, "%s", env);
		return 1;
	}
	static const char *const names[] = {"chromium", "chromium-browser"};
	for (size_t i = 0; i < 2; i++) {
		char cmd[128];
		snprintf(cmd, sizeof cmd, "command -v %s >/dev/null 2>&1", names[i]);
		if (system(cmd) == 0) {
			snprintf(chromium, sizeof chromium, "%s", names[i]);
			return 1;
		}
	}
	return 0;
}

static int sh(const char *cmd)
{
	int st = system(cmd);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void renders_in_chromium(void **state)
{
	char db[128], res[128], html[600], cmd[4096];
	snprintf(dir, sizeof dir, "/tmp/krl-chromium-XXXXXX");
	assert_non_null(mkdtemp(dir));
	fx_make(dir);
	snprintf(db, sizeof db, "%s/krl.db", dir);
	snprintf(res, sizeof res, "%s/results.jsonl", dir);
	snprintf(html, sizeof html, "%s/report-fixture.html", outdir);
	const char *results[] = {res};
	krl_report_opts o = {.db = db, .results = results, .nresults = 1,
	                     .title = "kernelrl report (test fixture)"};
	FILE *f = fopen(html, "w");
	assert_non_null(f);
	krl_diag d = {0};
	KRL_ASSERT_OK(krl_report_write(&o, f, &d), &d);
	assert_int_equal(fclose(f), 0);

	/* One profile folder of our own; no network at all (a fetch would
	 * fail and be logged); console messages logged to stderr. */
	const char *flags =
		"--headless --no-sandbox --disable-gpu --disable-dev-shm-usage "
		"--hide-scrollbars "
		"--no-first-run --no-default-browser-check --disable-extensions "
		"--disable-background-networking --disable-sync "
		"--proxy-server=127.0.0.1:9 --proxy-bypass-list='<-loopback>' "
		"--enable-logging=stderr --v=0 --window-size=1100,2200 "
		"--virtual-time-budget=5000";
	snprintf(cmd, sizeof cmd,
	         "timeout 120 %s %s --user-data-dir='%s/profile' "
	         "--screenshot='%s/report-fixture.png' 'file://%s' "
	         ">'%s/report-fixture.chromium.log' 2>&1",
	         chromium, flags, dir, outdir, html, outdir);
	assert_int_equal(sh(cmd), 0);
	snprintf(cmd, sizeof cmd,
	         "timeout 120 %s %s --user-data-dir='%s/profile' --dump-dom "
	         "'file://%s' >'%s/report-fixture.dom.html' "
	         "2>>'%s/report-fixture.chromium.log'",
	         chromium, flags, dir, html, outdir, outdir);
	assert_int_equal(sh(cmd), 0);

	/* the screenshot is a PNG of some size */
	char png[600];
	snprintf(png, sizeof png, "%s/report-fixture.png", outdir);
	char *p = fx_read(png);
	assert_int_equal(memcmp(p, "\x89PNG\r\n\x1a\n", 8), 0);
	free(p);
	snprintf(cmd, sizeof cmd, "test $(stat -c %%s '%s') -gt 20000", png);
	assert_int_equal(sh(cmd), 0);

	/* no console message (an error, a blocked fetch, a CSP report) and no
	 * failed load in Chromium's log; its own dbus/GPU chatter is not the
	 * page's */
	char logp[600];
	snprintf(logp, sizeof logp, "%s/report-fixture.chromium.log", outdir);
	char *log = fx_read(logp);
	const char *bad[] = {"CONSOLE", "Uncaught", "ERR_PROXY",
	                     "ERR_CONNECTION", "net::ERR_", "Refused to"};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
		if (strstr(log, bad[i])) {
			fprintf(stderr, "chromium log (%s) says %s:\n%s\n", logp,
			        bad[i], log);
			fail();
		}
	free(log);

	/* the DOM Chromium built: the charts and the escaped names */
	char domp[600];
	snprintf(domp, sizeof domp, "%s/report-fixture.dom.html", outdir);
	char *dom = fx_read(domp);
	assert_non_null(strstr(dom, "kernelrl report (test fixture)"));
	assert_non_null(strstr(dom, "lvl/&lt;&amp;&gt;evil"));
	assert_null(strstr(dom, "<script"));
	assert_null(strstr(dom, "<img"));
	size_t nsvg = 0;
	for (const char *s = strstr(dom, "<svg"); s; s = strstr(s + 4, "<svg"))
		nsvg++;
	/* speedup, peers, verdicts, two learning curves, roofline */
	assert_int_equal(nsvg, 6);
	assert_non_null(strstr(dom, "ceiling wrong"));
	free(dom);
	printf("chromium: screenshot %s, DOM %s, log %s\n", png, domp, logp);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	assert_int_equal(sh(cmd), 0);
}

int main(void)
{
	if (!find_chromium()) {
		printf("SKIP: no chromium on PATH (scripts/deps.sh --test installs "
		       "Debian's chromium; KRL_CHROMIUM names another binary)\n");
		return 77;
	}
	const char *o = getenv("KRL_REPORT_OUT");
	snprintf(outdir, sizeof outdir, "%s", o && *o ? o : ".");
	char cmd[600];
	snprintf(cmd, sizeof cmd, "mkdir -p '%s'", outdir);
	if (sh(cmd) != 0)
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(renders_in_chromium),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
