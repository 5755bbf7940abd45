/*
 * A plan captured in one CUDA graph (docs/runtime.md, "Graphs"): the
 * judge's graph timing mode replays it instead of enqueueing the plan op by
 * op. The capture is a stream capture of the executor itself (krl_exec, one
 * step at a time), so kernel launches through the driver API and library
 * calls (cuBLASLt, cuDNN, CUB, the op library's kernels) on that stream all
 * land in the graph, and after every step the capture's status says whether
 * that step broke it: a refusal names the statement.
 *
 * Mode thread-local: a call this thread makes that is not capture-safe
 * (cudaMalloc, a synchronous copy, a stream or device synchronisation, a
 * query of captured work) fails at once instead of running outside the
 * graph; relaxed mode would let an allocation through, and global mode
 * would also refuse such calls from other threads of the process that have
 * nothing to do with this plan.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "krl/runtime.h"
#include "runtime/cudacheck.h"

struct krl_cugraph {
	cudaGraph_t graph;
	cudaGraphExec_t exec;
	int nodes;
};

const char *krl_cugraph_hint(int cuda_error)
{
	switch ((cudaError_t)cuda_error) {
	case cudaErrorStreamCaptureUnsupported:
		return "the call synchronises, allocates device memory, copies "
		       "to or from the host or queries the device while it runs, "
		       "which a CUDA graph cannot hold";
	case cudaErrorStreamCaptureInvalidated:
		return "an operation of the call failed during the capture and "
		       "invalidated it";
	case cudaErrorStreamCaptureImplicit:
		return "the call uses the legacy default stream, which would run "
		       "outside the graph";
	case cudaErrorStreamCaptureIsolation:
	case cudaErrorStreamCaptureMerge:
	case cudaErrorStreamCaptureUnjoined:
		return "the call forks work onto another stream without joining "
		       "it back into the captured one";
	case cudaErrorCapturedEvent:
		return "the call waits on or queries an event recorded during "
		       "the capture";
	case cudaErrorStreamCaptureWrongThread:
		return "the call ends or uses the capture from another thread";
	default:
		return "";
	}
}

/* Ends a capture that failed, dropping whatever it held, and clears the
 * (non-sticky) capture error so the stream is usable again. */
static void abandon(cudaStream_t s)
{
	enum cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
	if (cudaStreamIsCapturing(s, &st) == cudaSuccess &&
	    st != cudaStreamCaptureStatusNone) {
		cudaGraph_t g = NULL;
		cudaStreamEndCapture(s, &g);
		if (g)
			cudaGraphDestroy(g);
	}
	(void)cudaGetLastError();
}

/* The refusal of step s: "graph capture: <launch|call> NAME: <what>
 * (<hint>)" at the statement's position. inner is the executor's message
 * (already prefixed with the statement) or NULL. */
static krl_err refuse(krl_diag *d, const krl_step *s, const char *inner,
                      cudaError_t e)
{
	const char *hint = krl_cugraph_hint((int)e);
	char msg[sizeof d->msg];
	if (inner)
		snprintf(msg, sizeof msg, "%s", inner);
	else
		snprintf(msg, sizeof msg, "%s %s: %s",
		         s->kind == KRL_ST_LAUNCH ? "launch" : "call",
		         s->src ? s->src->name : "?",
		         e != cudaSuccess ? cudaGetErrorString(e)
		                          : "the capture was invalidated");
	return krl_diag_set(d, KRL_EUNSUPPORTED,
	                    s->src ? s->src->pos : (krl_pos){0},
	                    "this plan cannot be captured in a CUDA graph "
	                    "(graph timing): %s%s%s%s", msg, *hint ? " (" : "",
	                    hint, *hint ? ")" : "");
}

krl_err krl_cugraph_capture(const krl_program *p, const krl_step *steps, int n,
                          void *const *bufs, const krl_module *mod,
                          krl_opctx *ops, void *stream, krl_cugraph **out,
                          krl_diag *d)
{
	cudaStream_t s = (cudaStream_t)stream;
	krl_err r = KRL_OK;
	krl_cugraph *g = NULL;
	*out = NULL;
	if (!s)
		return krl_diag_set(d, KRL_EINVAL, (krl_pos){0}, "graph capture "
		                    "needs a stream of its own (the legacy default "
		                    "stream cannot be captured)");
	/* an error left over from earlier work must not be blamed on a step */
	(void)cudaGetLastError();
	CUDA_TRY(d, cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
	for (int i = 0; i < n; i++) {
		enum cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
		r = krl_exec(p, steps + i, 1, bufs, mod, ops, stream, d);
		cudaError_t e = cudaGetLastError();
		cudaError_t qe = cudaStreamIsCapturing(s, &st);
		if (r != KRL_OK || qe != cudaSuccess ||
		    st != cudaStreamCaptureStatusActive) {
			char inner[sizeof d->msg];
			snprintf(inner, sizeof inner, "%s", d->msg);
			abandon(s);
			if (r == KRL_OK && e == cudaSuccess)
				e = qe != cudaSuccess ? qe
				                      : cudaErrorStreamCaptureInvalidated;
			/* a library that turns CUDA's error into its own
			 * status hides the code: the capture error it
			 * caused is the likely one */
			if (r != KRL_OK && e == cudaSuccess &&
			    strstr(inner, "capturing"))
				e = cudaErrorStreamCaptureUnsupported;
			return refuse(d, steps + i, r != KRL_OK ? inner : NULL, e);
		}
	}
	cudaGraph_t graph = NULL;
	cudaError_t e = cudaStreamEndCapture(s, &graph);
	if (e != cudaSuccess || !graph) {
		abandon(s);
		return krl_diag_set(d, KRL_EUNSUPPORTED, (krl_pos){0},
		                    "this plan cannot be captured in a CUDA graph "
		                    "(graph timing): ending the capture failed: %s%s%s%s",
		                    cudaGetErrorString(e), *krl_cugraph_hint((int)e) ? " (" : "",
		                    krl_cugraph_hint((int)e),
		                    *krl_cugraph_hint((int)e) ? ")" : "");
	}
	if (!(g = calloc(1, sizeof *g))) {
		cudaGraphDestroy(graph);
		return krl_diag_set(d, KRL_ENOMEM, (krl_pos){0}, "out of memory");
	}
	g->graph = graph;
	size_t nn = 0;
	CUDA_CHECK(d, cudaGraphGetNodes(graph, NULL, &nn));
	g->nodes = (int)nn;
	e = cudaGraphInstantiate(&g->exec, graph, 0);
	if (e != cudaSuccess) {
		(void)cudaGetLastError();
		g->exec = NULL;
		r = krl_diag_set(d, e == cudaErrorMemoryAllocation ? KRL_EDEVMEM
		                                                   : KRL_EUNSUPPORTED,
		                 (krl_pos){0}, "this plan cannot be captured in a "
		                 "CUDA graph (graph timing): instantiating its "
		                 "graph of %d nodes failed: %s", g->nodes,
		                 cudaGetErrorString(e));
		goto out;
	}
	*out = g;
	return KRL_OK;
out:
	krl_cugraph_free(g);
	return r;
}

krl_err krl_cugraph_launch(const krl_cugraph *g, void *stream, krl_diag *d)
{
	if (!g || !g->exec)
		return krl_diag_set(d, KRL_EINVAL, (krl_pos){0},
		                    "no instantiated graph to launch");
	CUDA_TRY(d, cudaGraphLaunch(g->exec, (cudaStream_t)stream));
	return KRL_OK;
}

int krl_cugraph_nodes(const krl_cugraph *g)
{
	return g ? g->nodes : 0;
}

void krl_cugraph_free(krl_cugraph *g)
{
	if (!g)
		return;
	if (g->exec)
		cudaGraphExecDestroy(g->exec);
	if (g->graph)
		cudaGraphDestroy(g->graph);
	free(g);
}
