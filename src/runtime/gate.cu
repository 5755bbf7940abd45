/*
 * The timing gate (include/krl/gate.h): a one-thread kernel polls a
 * host-mapped ticket until the host writes the ticket it waits for, or its
 * time limit (the device's global nanosecond timer) passes.
 */
#include <stdint.h>
#include <stdlib.h>

#include <cuda_runtime.h>

#include "krl/gate.h"
#include "runtime/cudacheck.h"

struct krl_gate {
	volatile uint32_t *flag; /* host-mapped: the last ticket opened */
	uint32_t *gave_way;      /* host-mapped: set by a wait that timed out */
	uint32_t ticket;         /* the last ticket a wait was enqueued for */
	uint64_t timeout_ns;
};

static __device__ __forceinline__ uint64_t now_ns(void)
{
	uint64_t t;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

static __global__ void gate_wait(const volatile uint32_t *flag,
                                 uint32_t ticket, uint64_t timeout_ns,
                                 uint32_t *gave_way)
{
	const uint64_t t0 = now_ns();
	/* tickets wrap: compare by signed difference */
	while ((int32_t)(*flag - ticket) < 0) {
		if (now_ns() - t0 > timeout_ns) {
			*gave_way = 1;
			return;
		}
		__nanosleep(200);
	}
}

krl_err krl_gate_create(double timeout_ms, krl_gate **out, krl_diag *d)
{
	krl_err r = KRL_OK;
	krl_gate *g = (krl_gate *)calloc(1, sizeof *g);
	void *mem = NULL;
	if (!g)
		return krl_diag_set(d, KRL_ENOMEM, (krl_pos){ 0 },
		                    "out of memory for the timing gate");
	CUDA_CHECK(d, cudaHostAlloc(&mem, 2 * sizeof(uint32_t),
	                            cudaHostAllocMapped));
	g->flag = (volatile uint32_t *)mem;
	g->gave_way = (uint32_t *)mem + 1;
	g->flag[0] = 0;
	g->gave_way[0] = 0;
	g->timeout_ns = (uint64_t)(timeout_ms * 1e6);
	*out = g;
	g = NULL;
out:
	free(g);
	return r;
}

void krl_gate_destroy(krl_gate *g)
{
	if (!g)
		return;
	cudaFreeHost((void *)g->flag);
	free(g);
}

krl_err krl_gate_close(krl_gate *g, void *stream, krl_diag *d)
{
	/* The pointers are host-mapped: with unified addressing the device
	 * uses the host addresses. */
	uint32_t ticket = g->ticket + 1;
	g->gave_way[0] = 0;
	CUDA_TRY(d, (gate_wait<<<1, 1, 0, (cudaStream_t)stream>>>(
	                     g->flag, ticket, g->timeout_ns, g->gave_way),
	             cudaGetLastError()));
	g->ticket = ticket;
	return KRL_OK;
}

void krl_gate_open(krl_gate *g)
{
	__atomic_store_n((uint32_t *)g->flag, g->ticket, __ATOMIC_RELEASE);
}

int krl_gate_gave_way(const krl_gate *g)
{
	return __atomic_load_n(g->gave_way, __ATOMIC_ACQUIRE) != 0;
}
