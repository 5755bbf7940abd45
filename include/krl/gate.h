/*
 * kernelrl: the timing gate. A timed call is enqueued behind a gate: a
 * one-thread kernel that waits until the host opens it. The L2 flush, the
 * start event, the call and the end event are all enqueued while the stream
 * is held, so the GPU runs them back to back and the events measure device
 * work only, never how long the host took to enqueue it (a library call whose
 * host side outlasts the flush would otherwise leave an idle gap inside the
 * timed window). The judge and the runner use one each, so both sides of a
 * pair are timed alike.
 *
 * The wait has a limit (krl_gate_create's timeout_ms): a call whose enqueue
 * waits for the device (a synchronising API inside it) cannot deadlock; the
 * gate gives way and krl_gate_gave_way says so after the call.
 */
#ifndef KRL_GATE_H
#define KRL_GATE_H

#include "krl/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct krl_gate krl_gate;

/* Host-mapped flag and counter; KRL_ECUDA when mapped host memory is not
 * available. */
krl_err krl_gate_create(double timeout_ms, krl_gate **out, krl_diag *d);
void krl_gate_destroy(krl_gate *g);

/* Enqueues the wait on stream: work enqueued after it starts once
 * krl_gate_open is called (or the timeout passed). */
krl_err krl_gate_close(krl_gate *g, void *stream, krl_diag *d);

/* Opens the gate closed last. */
void krl_gate_open(krl_gate *g);

/* After the stream has synchronised: 1 when the last wait ended by its
 * timeout rather than by krl_gate_open. */
int krl_gate_gave_way(const krl_gate *g);

#ifdef __cplusplus
}
#endif
#endif
