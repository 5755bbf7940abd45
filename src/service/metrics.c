/*
 * The service's metrics in the Prometheus text exposition format (0.0.4):
 * evaluations by verdict, HTTP answers by status, queue depth, jobs in
 * flight, workers, evaluator failures and the latency histogram (request
 * admission to committed row). Every series is always present, zeros
 * included, so that a scraper sees stable names from the first scrape.
 */
#include <stdio.h>
#include <string.h>

#include "service/service_int.h"
#include "util/strbuf.h"

const double krl_svc_buckets[SVC_NBUCKETS] = {
	0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300};

static const char *verdict_name(int i)
{
	return i < KRL_V_COUNT ? krl_verdict_name((krl_verdict)i)
	                       : "no_candidate";
}

void krl_svc_metrics_eval(krl_service *s, const char *verdict, double secs)
{
	int found = 0;
	for (int i = 0; i < SVC_NVERDICTS && !found; i++)
		if (!strcmp(verdict, verdict_name(i))) {
			s->verdicts[i]++;
			found = 1;
		}
	if (!found)
		s->other_verdicts++;
	for (int b = 0; b < SVC_NBUCKETS; b++)
		if (secs <= krl_svc_buckets[b])
			s->buckets[b]++;
	s->lat_count++;
	s->lat_sum += secs;
}

void krl_svc_metrics_http(krl_service *s, int status)
{
	pthread_mutex_lock(&s->mu);
	if (status >= 100 && status < 600)
		s->by_status[status]++;
	pthread_mutex_unlock(&s->mu);
}

char *krl_svc_metrics_text(krl_service *s)
{
	krl_strbuf b = {0};
	pthread_mutex_lock(&s->mu);
	krl_strbuf_str(&b,
		"# HELP krl_evaluations_total Evaluations committed to the "
		"store, by verdict.\n"
		"# TYPE krl_evaluations_total counter\n");
	for (int i = 0; i < SVC_NVERDICTS; i++)
		krl_strbuf_printf(&b, "krl_evaluations_total{verdict=\"%s\"} %llu\n",
		                  verdict_name(i),
		                  (unsigned long long)s->verdicts[i]);
	if (s->other_verdicts)
		krl_strbuf_printf(&b, "krl_evaluations_total{verdict=\"other\"} "
		                  "%llu\n", (unsigned long long)s->other_verdicts);
	krl_strbuf_str(&b,
		"# HELP krl_evaluator_errors_total Evaluations the evaluator or "
		"the store could not complete (answered 500, no row).\n"
		"# TYPE krl_evaluator_errors_total counter\n");
	krl_strbuf_printf(&b, "krl_evaluator_errors_total %llu\n",
	                  (unsigned long long)s->judge_errors);
	krl_strbuf_str(&b,
		"# HELP krl_http_responses_total HTTP answers, by status code.\n"
		"# TYPE krl_http_responses_total counter\n");
	static const int codes[] = {200, 400, 401, 404, 405, 413, 429, 500,
	                            503, 504};
	for (size_t i = 0; i < sizeof codes / sizeof *codes; i++)
		krl_strbuf_printf(&b, "krl_http_responses_total{code=\"%d\"} %llu\n",
		                  codes[i],
		                  (unsigned long long)s->by_status[codes[i]]);
	krl_strbuf_printf(&b,
		"# HELP krl_queue_depth Jobs waiting for a worker.\n"
		"# TYPE krl_queue_depth gauge\n"
		"krl_queue_depth %d\n"
		"# HELP krl_queue_capacity Jobs that may wait before 429.\n"
		"# TYPE krl_queue_capacity gauge\n"
		"krl_queue_capacity %d\n"
		"# HELP krl_in_flight Jobs being evaluated.\n"
		"# TYPE krl_in_flight gauge\n"
		"krl_in_flight %d\n"
		"# HELP krl_workers Evaluation workers (one per GPU for the "
		"judge).\n"
		"# TYPE krl_workers gauge\n"
		"krl_workers %d\n",
		s->queued, s->o.queue, s->in_flight, s->nthreads);
	krl_strbuf_str(&b,
		"# HELP krl_evaluation_seconds From admission to the committed "
		"row.\n"
		"# TYPE krl_evaluation_seconds histogram\n");
	for (int i = 0; i < SVC_NBUCKETS; i++)
		krl_strbuf_printf(&b,
		                  "krl_evaluation_seconds_bucket{le=\"%g\"} %llu\n",
		                  krl_svc_buckets[i],
		                  (unsigned long long)s->buckets[i]);
	krl_strbuf_printf(&b,
		"krl_evaluation_seconds_bucket{le=\"+Inf\"} %llu\n"
		"krl_evaluation_seconds_sum %.6f\n"
		"krl_evaluation_seconds_count %llu\n",
		(unsigned long long)s->lat_count, s->lat_sum,
		(unsigned long long)s->lat_count);
	pthread_mutex_unlock(&s->mu);
	return krl_strbuf_take(&b);
}
