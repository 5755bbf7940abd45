/*
 * The judge <-> runner protocol (private): JSON messages, each preceded by
 * its length as a 4-byte little-endian integer, over a socket pair.
 */
#ifndef KRL_PROTO_H
#define KRL_PROTO_H

#include <jansson.h>

#include "krl/error.h"

/* Sends msg (not consumed). KRL_ERUNNER when the peer is gone. */
krl_err krl_proto_send(int fd, const json_t *msg, krl_diag *d);

/* Receives one message into *msg (caller decrefs). timeout_ms < 0 waits
 * forever. KRL_ETIMEOUT when nothing complete arrived in time; KRL_ERUNNER
 * on end of file or a malformed message. */
krl_err krl_proto_recv(int fd, int timeout_ms, json_t **msg, krl_diag *d);

#endif
