/* The judge <-> runner protocol over a real socket pair (CPU). */
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "judge/proto.h"
#include "testutil.h"

static void roundtrip(void **state)
{
	int sv[2];
	krl_diag d = {0};
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	json_t *m = json_pack("{s:s, s:i, s:f}", "cmd", "run", "n", 42, "x", 1.5);
	KRL_ASSERT_OK(krl_proto_send(sv[0], m, &d), &d);
	json_t *got = NULL;
	KRL_ASSERT_OK(krl_proto_recv(sv[1], 1000, &got, &d), &d);
	assert_true(json_equal(m, got));
	json_decref(m);
	json_decref(got);
	close(sv[0]);
	close(sv[1]);
}

static void large_message(void **state)
{
	int sv[2];
	krl_diag d = {0};
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	/* Larger than a socket buffer: needs a reader while writing. */
	size_t n = 3u << 20;
	char *big = malloc(n + 1);
	memset(big, 'a', n);
	big[n] = 0;
	json_t *m = json_pack("{s:s}", "cubin", big);
	pid_t pid = fork();
	if (pid == 0) {
		krl_proto_send(sv[0], m, NULL);
		_exit(0);
	}
	json_t *got = NULL;
	KRL_ASSERT_OK(krl_proto_recv(sv[1], 5000, &got, &d), &d);
	assert_int_equal(strlen(json_string_value(json_object_get(got, "cubin"))), n);
	json_decref(got);
	json_decref(m);
	free(big);
	close(sv[0]);
	close(sv[1]);
}

static void timeout_and_eof(void **state)
{
	int sv[2];
	krl_diag d = {0};
	json_t *got = NULL;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(krl_proto_recv(sv[1], 50, &got, &d), KRL_ETIMEOUT);
	assert_null(got);
	/* A partial header then silence is still a timeout. */
	assert_int_equal(write(sv[0], "\x05\x00", 2), 2);
	assert_int_equal(krl_proto_recv(sv[1], 50, &got, &d), KRL_ETIMEOUT);
	close(sv[0]);
	assert_int_equal(krl_proto_recv(sv[1], 1000, &got, &d), KRL_ERUNNER);
	assert_non_null(strstr(d.msg, "closed"));
	close(sv[1]);
}

static void malformed(void **state)
{
	int sv[2];
	krl_diag d = {0};
	json_t *got = NULL;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	assert_int_equal(write(sv[0], "\x03\x00\x00\x00{x}", 7), 7);
	assert_int_equal(krl_proto_recv(sv[1], 1000, &got, &d), KRL_ERUNNER);
	assert_non_null(strstr(d.msg, "malformed"));
	/* A length beyond the limit is rejected before reading. */
	assert_int_equal(write(sv[0], "\xff\xff\xff\x7f", 4), 4);
	assert_int_equal(krl_proto_recv(sv[1], 1000, &got, &d), KRL_ERUNNER);
	assert_non_null(strstr(d.msg, "too large"));
	close(sv[0]);
	close(sv[1]);
}

static void send_to_dead_peer(void **state)
{
	int sv[2];
	krl_diag d = {0};
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	close(sv[1]);
	json_t *m = json_pack("{s:s}", "cmd", "quit");
	/* Must fail cleanly, not kill the process with SIGPIPE. */
	assert_int_equal(krl_proto_send(sv[0], m, &d), KRL_ERUNNER);
	json_decref(m);
	close(sv[0]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(roundtrip),
		cmocka_unit_test(large_message),
		cmocka_unit_test(timeout_and_eof),
		cmocka_unit_test(malformed),
		cmocka_unit_test(send_to_dead_peer),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
