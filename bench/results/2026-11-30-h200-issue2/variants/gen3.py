OPS = {
 'relu': ('static __device__ __forceinline__ float f1(float v){return v != v ? v : (v > 0.f ? v : 0.f);}', 'level1/19_relu'),
 'gelu': ('static __device__ __forceinline__ float f1(float v){return 0.5f * v * (1.f + erff(v * 0.70710678118654752f));}', 'level1/26_gelu'),
}
def tma(op, ST, CHK, T, K):
    f, task = OPS[op]
    CH = CHK * 256  # floats per chunk (CHK KiB)
    src = f'''/* {op}: TMA bulk copies through shared memory, {ST} stages of {CHK} KiB, {T} threads, sm_count*{K} blocks */
{f}
#define ST {ST}
#define CH {CH}
static __device__ __forceinline__ unsigned sa(const void *p) {{ return (unsigned)__cvta_generic_to_shared(p); }}
static __device__ __forceinline__ void mwait(unsigned a, unsigned ph)
{{
	unsigned done = 0;
	while (!done)
		asm volatile("{{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }}"
		             : "=r"(done) : "r"(a), "r"(ph) : "memory");
}}
static __device__ __forceinline__ void tload(unsigned dst, const float *src, unsigned bytes, unsigned bar)
{{
	asm volatile("{{ .reg .b64 st; mbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1; }}" :: "r"(bar), "r"(bytes) : "memory");
	asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
	             :: "r"(dst), "l"(src), "r"(bytes), "r"(bar) : "memory");
}}
extern "C" __global__ void __launch_bounds__({T}) ew(const float *__restrict__ x, float *__restrict__ y, long n)
{{
	__shared__ __align__(128) float buf[ST][CH];
	__shared__ __align__(8) unsigned long long bar[ST];
	const long nch = n / CH;
	if (threadIdx.x == 0) {{
		for (int s = 0; s < ST; s++)
			asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(sa(&bar[s])) : "memory");
		asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
		asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
	}}
	__syncthreads();
	if (threadIdx.x == 0)
		for (int s = 0; s < ST; s++) {{
			long c = blockIdx.x + (long)s * gridDim.x;
			if (c < nch) tload(sa(buf[s]), x + c * CH, CH * 4, sa(&bar[s]));
		}}
	long j = 0;
	for (long c = blockIdx.x; c < nch; c += gridDim.x, j++) {{
		const int s = (int)(j % ST);
		mwait(sa(&bar[s]), (unsigned)((j / ST) & 1));
		float4 *b4 = reinterpret_cast<float4 *>(buf[s]);
		for (int k = threadIdx.x; k < CH / 4; k += {T}) {{
			float4 v = b4[k];
			v.x = f1(v.x); v.y = f1(v.y); v.z = f1(v.z); v.w = f1(v.w);
			b4[k] = v;
		}}
		asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
		__syncthreads();
		if (threadIdx.x == 0) {{
			asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
			             :: "l"(y + c * CH), "r"(sa(buf[s])), "r"(CH * 4) : "memory");
			asm volatile("cp.async.bulk.commit_group;" ::: "memory");
			long cn = c + (long)ST * gridDim.x;
			if (cn < nch) {{
				asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
				tload(sa(buf[s]), x + cn * CH, CH * 4, sa(&bar[s]));
			}}
		}}
	}}
	if (threadIdx.x == 0)
		asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
	/* the tail: the last block, scalars */
	if (blockIdx.x == gridDim.x - 1)
		for (long t = nch * CH + threadIdx.x; t < n; t += {T})
			y[t] = f1(x[t]);
}}
/*@plan
launch ew grid=(sm_count*{K}) block=({T}) args(x, y, numel(x))
@*/
'''
    name = f'{op}_tma_S{ST}C{CHK}T{T}K{K}.cu'
    open(name, 'w').write(src)
    return name, task
lines = []
for op, ST, CHK, T, K in [('relu',4,8,256,4),('relu',5,8,256,4),('relu',2,16,256,6),('relu',8,4,128,6),('gelu',4,8,256,4)]:
    lines.append(tma(op, ST, CHK, T, K))
with open('LIST3', 'w') as fh:
    for n, t in lines:
        fh.write(f'{n} {t} ok\n')
