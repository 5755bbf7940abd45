/* The judge <-> runner protocol: length-prefixed JSON over a socket. */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "judge/proto.h"
#include "util/clock.h"

#define MAX_MSG (64u << 20)

static krl_err fail(krl_diag *d, krl_err e, const char *what)
{
	krl_pos none = {0};
	return krl_diag_set(d, e, none, "runner protocol: %s", what);
}

krl_err krl_proto_send(int fd, const json_t *msg, krl_diag *d)
{
	char *text = json_dumps(msg, JSON_COMPACT);
	if (!text)
		return fail(d, KRL_ENOMEM, "cannot encode message");
	size_t n = strlen(text);
	unsigned char hdr[4] = {(unsigned char)n, (unsigned char)(n >> 8),
	                        (unsigned char)(n >> 16), (unsigned char)(n >> 24)};
	krl_err r = KRL_OK;
	const unsigned char *parts[2] = {hdr, (const unsigned char *)text};
	size_t lens[2] = {4, n};
	for (int p = 0; p < 2 && r == KRL_OK; p++) {
		size_t off = 0;
		while (off < lens[p]) {
			/* send() with MSG_NOSIGNAL: a dead peer must not raise SIGPIPE. */
			ssize_t w = send(fd, parts[p] + off, lens[p] - off,
			                 MSG_NOSIGNAL);
			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0) {
				r = fail(d, KRL_ERUNNER, "peer closed the connection");
				break;
			}
			off += (size_t)w;
		}
	}
	free(text);
	return r;
}

/* Reads exactly n bytes before the deadline (deadline < 0: none). */
static krl_err read_full(int fd, unsigned char *buf, size_t n, double deadline,
                         krl_diag *d)
{
	size_t off = 0;
	while (off < n) {
		int wait = -1;
		if (deadline >= 0) {
			double left = deadline - krl_now_s() * 1e3;
			if (left <= 0)
				return fail(d, KRL_ETIMEOUT, "no answer in time");
			wait = (int)left + 1;
		}
		struct pollfd pfd = {.fd = fd, .events = POLLIN};
		int pr = poll(&pfd, 1, wait);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr < 0)
			return fail(d, KRL_ERUNNER, strerror(errno));
		if (pr == 0)
			continue; /* re-check the deadline */
		ssize_t got = read(fd, buf + off, n - off);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return fail(d, KRL_ERUNNER, "peer closed the connection");
		off += (size_t)got;
	}
	return KRL_OK;
}

krl_err krl_proto_recv(int fd, int timeout_ms, json_t **msg, krl_diag *d)
{
	double deadline = timeout_ms < 0 ? -1 : krl_now_s() * 1e3 + timeout_ms;
	unsigned char hdr[4];
	*msg = NULL;
	krl_err r = read_full(fd, hdr, 4, deadline, d);
	if (r != KRL_OK)
		return r;
	uint32_t n = hdr[0] | hdr[1] << 8 | hdr[2] << 16 | (uint32_t)hdr[3] << 24;
	if (n > MAX_MSG)
		return fail(d, KRL_ERUNNER, "message too large");
	unsigned char *buf = malloc(n + 1);
	if (!buf)
		return fail(d, KRL_ENOMEM, "out of memory");
	r = read_full(fd, buf, n, deadline, d);
	if (r == KRL_OK) {
		json_error_t je;
		*msg = json_loadb((const char *)buf, n, 0, &je);
		if (!*msg)
			r = fail(d, KRL_ERUNNER, "malformed message");
	}
	free(buf);
	return r;
}
