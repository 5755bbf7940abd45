# Issue 2's variant candidates (bench/results/2026-11-30-h200-issue2):
# writes every .cu and the batch lists (LIST*) into the current folder;
# judged with `krl batch LIST --shapes tiny,kb1 --json` (or kb0).
# Round 1's 8-warp wide sums were named sum_wide_W?S?U?.cu (no N suffix).
# Variant candidates for issue 2's roofline-bound cells (not part of the project).
import os
OPS = {
 'relu': ('static __device__ __forceinline__ float f1(float v){return v != v ? v : (v > 0.f ? v : 0.f);}', 'level1/19_relu'),
 'gelu': ('static __device__ __forceinline__ float f1(float v){return 0.5f * v * (1.f + erff(v * 0.70710678118654752f));}', 'level1/26_gelu'),
}
LOADS = {
 'plain': 'static __device__ __forceinline__ float4 ld4(const float *p){return *reinterpret_cast<const float4 *>(p);}',
 'ldg': 'static __device__ __forceinline__ float4 ld4(const float *p){return __ldg(reinterpret_cast<const float4 *>(p));}',
 'pf256': '''static __device__ __forceinline__ float4 ld4(const float *p){float4 v;
 asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(v.x),"=f"(v.y),"=f"(v.z),"=f"(v.w) : "l"(p));return v;}''',
 'pf128': '''static __device__ __forceinline__ float4 ld4(const float *p){float4 v;
 asm volatile("ld.global.L2::128B.v4.f32 {%0,%1,%2,%3}, [%4];" : "=f"(v.x),"=f"(v.y),"=f"(v.z),"=f"(v.w) : "l"(p));return v;}''',
}
def ew(op, T, U, load):
    f, task = OPS[op]
    E = T * 4 * U
    src = f'''/* {op} variant T={T} U={U} load={load} */
{f}
{LOADS[load]}
extern "C" __global__ void __launch_bounds__({T}) ew(const float *__restrict__ x, float *__restrict__ y, long n)
{{
	const long base = (long)blockIdx.x * {E};
	const long rem = n - base;
	if (rem >= {E}) {{
		float4 v[{U}];
#pragma unroll
		for (int u = 0; u < {U}; u++) v[u] = ld4(x + base + (u * {T} + threadIdx.x) * 4);
#pragma unroll
		for (int u = 0; u < {U}; u++) {{ v[u].x = f1(v[u].x); v[u].y = f1(v[u].y); v[u].z = f1(v[u].z); v[u].w = f1(v[u].w); }}
#pragma unroll
		for (int u = 0; u < {U}; u++) *reinterpret_cast<float4 *>(y + base + (u * {T} + threadIdx.x) * 4) = v[u];
		return;
	}}
	for (long t = threadIdx.x; t < rem; t += {T}) y[base + t] = f1(x[base + t]);
}}
/*@plan
launch ew grid=(cdiv(numel(x), {E})) block=({T}) args(x, y, numel(x))
@*/
'''
    name = f'{op}_T{T}U{U}_{load}.cu'
    open(name, 'w').write(src)
    return name, task

def sum_rows(TY, UN):
    # the example's layout with other row lanes / unroll
    src = f'''/* sum variant rows TY={TY} UNROLL={UN} */
extern "C" __global__ void __launch_bounds__(32 * {TY})
sd(const float *__restrict__ x, float *__restrict__ y, long dim1, long dim2)
{{
	__shared__ float red[{TY}][33];
	const long col = (long)blockIdx.x * 32 + threadIdx.x;
	const long b = blockIdx.y;
	float acc = 0.f;
	if (col < dim2) {{
		const float *p = x + b * dim1 * dim2 + col;
		long i = threadIdx.y;
		for (; i + ({UN} - 1) * {TY} < dim1; i += {UN} * {TY}) {{
			float v[{UN}];
#pragma unroll
			for (int k = 0; k < {UN}; k++) v[k] = p[(i + k * {TY}) * dim2];
#pragma unroll
			for (int k = 0; k < {UN}; k++) acc += v[k];
		}}
		for (; i < dim1; i += {TY}) acc += p[i * dim2];
	}}
	red[threadIdx.y][threadIdx.x] = acc;
	__syncthreads();
	if (threadIdx.y == 0 && col < dim2) {{
		float s = 0.f;
#pragma unroll
		for (int k = 0; k < {TY}; k++) s += red[k][threadIdx.x];
		y[b * dim2 + col] = s;
	}}
}}
/*@plan
launch sd grid=(cdiv(dim(x, 2), 32), dim(x, 0)) block=(32, {TY}) args(x, y, dim(x, 1), dim(x, 2))
@*/
'''
    name = f'sum_rows_TY{TY}U{UN}.cu'
    open(name, 'w').write(src)
    return name, 'level1/47_sum_dim'

def sum_wide(W, S, UN, NW=8):
    # each warp covers 32*W contiguous columns of a row (W loads per row per thread);
    # 8 warps per block take rows r, r+8, ...; S splits of dim1 add with atomics.
    atomic = S > 1
    store = 'atomicAdd(&y[b * dim2 + c], s);' if atomic else 'y[b * dim2 + c] = s;'
    zero = '''
extern "C" __global__ void zero(float *y, long n)
{
	long i = (long)blockIdx.x * 256 + threadIdx.x;
	if (i < n) y[i] = 0.f;
}''' if atomic else ''
    zl = 'launch zero grid=(cdiv(numel(y), 256)) block=(256) args(y, numel(y))\n' if atomic else ''
    src = f'''/* sum variant wide W={W} splits={S} UNROLL={UN} */
{zero}
extern "C" __global__ void __launch_bounds__({32*NW})
sw(const float *__restrict__ x, float *__restrict__ y, long dim1, long dim2, long chunk)
{{
	__shared__ float red[{NW}][32 * {W} + 1];
	const long c0 = (long)blockIdx.x * (32 * {W}) + threadIdx.x;
	const long b = blockIdx.y;
	const long lo = (long)blockIdx.z * chunk;
	const long hi = lo + chunk < dim1 ? lo + chunk : dim1;
	float acc[{W}];
#pragma unroll
	for (int w = 0; w < {W}; w++) acc[w] = 0.f;
	const float *p = x + b * dim1 * dim2;
	long i = lo + threadIdx.y;
	for (; i + ({UN} - 1) * {NW} < hi; i += {UN} * {NW}) {{
		float v[{UN}][{W}];
#pragma unroll
		for (int k = 0; k < {UN}; k++)
#pragma unroll
			for (int w = 0; w < {W}; w++) {{
				long c = c0 + 32 * w;
				v[k][w] = c < dim2 ? p[(i + k * {NW}) * dim2 + c] : 0.f;
			}}
#pragma unroll
		for (int k = 0; k < {UN}; k++)
#pragma unroll
			for (int w = 0; w < {W}; w++) acc[w] += v[k][w];
	}}
	for (; i < hi; i += {NW})
#pragma unroll
		for (int w = 0; w < {W}; w++) {{
			long c = c0 + 32 * w;
			if (c < dim2) acc[w] += p[i * dim2 + c];
		}}
#pragma unroll
	for (int w = 0; w < {W}; w++) red[threadIdx.y][threadIdx.x + 32 * w] = acc[w];
	__syncthreads();
	for (int t = threadIdx.y * 32 + threadIdx.x; t < 32 * {W}; t += {32*NW}) {{
		long c = (long)blockIdx.x * (32 * {W}) + t;
		if (c >= dim2) continue;
		float s = 0.f;
#pragma unroll
		for (int k = 0; k < {NW}; k++) s += red[k][t];
		{store}
	}}
}}
/*@plan
{zl}launch sw grid=(cdiv(dim(x, 2), {32*W}), dim(x, 0), {S}) block=(32, {NW}) args(x, y, dim(x, 1), dim(x, 2), cdiv(dim(x, 1), {S}))
@*/
'''
    name = f'sum_wide_W{W}S{S}U{UN}N{NW}.cu'
    open(name, 'w').write(src)
    return name, 'level1/47_sum_dim'


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
def adaptive(op, TB, UB):
    f, task = OPS[op]
    # large tensors: 128 threads x 1 float4; small (< 4 Mi elements): TB threads x UB float4
    src = f'''/* {op} adaptive: small tensors {TB} threads x {UB} float4 */
{f}
static __device__ __forceinline__ float4 f4(float4 v) {{ v.x = f1(v.x); v.y = f1(v.y); v.z = f1(v.z); v.w = f1(v.w); return v; }}
extern "C" __global__ void ew(const float *__restrict__ x, float *__restrict__ y, long n, long u)
{{
	const long per_block = (long)blockDim.x * 4 * u;
	const long base = (long)blockIdx.x * per_block;
	const long rem = n - base;
	if (rem >= per_block) {{
		const long i = base + threadIdx.x * 4;
		if (u == 1) {{
			*reinterpret_cast<float4 *>(y + i) = f4(*reinterpret_cast<const float4 *>(x + i));
		}} else {{
			float4 v[{UB}];
#pragma unroll
			for (int k = 0; k < {UB}; k++) v[k] = *reinterpret_cast<const float4 *>(x + i + (long)k * blockDim.x * 4);
#pragma unroll
			for (int k = 0; k < {UB}; k++) *reinterpret_cast<float4 *>(y + i + (long)k * blockDim.x * 4) = f4(v[k]);
		}}
		return;
	}}
	for (long t = threadIdx.x; t < rem; t += blockDim.x) y[base + t] = f1(x[base + t]);
}}
/*@plan
launch ew grid=(cdiv(numel(x), 512 + ({TB * 4 * UB} - 512) * min(1, 4194304 / numel(x)))) \\
    block=(128 + ({TB} - 128) * min(1, 4194304 / numel(x))) \\
    args(x, y, numel(x), 1 + ({UB} - 1) * min(1, 4194304 / numel(x)))
@*/
'''
    name = f'{op}_adapt_T{TB}U{UB}.cu'
    open(name, 'w').write(src)
    return name, task

def write(name, pairs):
    with open(name, 'w') as fh:
        for n, t in pairs:
            fh.write(f'{n} {t} ok\n')

# round 1 (LIST: tiny,kb1; its relu/gelu lines also at kb0)
lines = []
for T, U, L in [(128,1,'plain'),(128,2,'plain'),(128,4,'plain'),(256,1,'plain'),(256,2,'plain'),(512,1,'plain'),(64,1,'plain'),(128,1,'pf256'),(128,2,'pf256'),(128,1,'ldg'),(128,1,'pf128'),(1024,1,'plain')]:
    lines.append(ew('relu', T, U, L))
for T, U, L in [(128,1,'plain'),(128,2,'plain'),(256,2,'plain'),(128,1,'pf256')]:
    lines.append(ew('gelu', T, U, L))
for TY, UN in [(16,4),(32,4),(16,8),(8,8)]:
    lines.append(sum_rows(TY, UN))
for W, S, UN in [(4,1,4),(4,4,4),(4,16,4),(1,4,4),(1,16,8),(2,8,4)]:
    lines.append(sum_wide(W, S, UN))   # 8 warps: the files of round 1 lack the N suffix
write('LIST', lines)
# sum rounds 2-4 (LIST2, LIST4, LIST6: tiny,kb1 and kb0)
for name, params in [('LIST2', [(4,4,4,8),(4,4,2,8),(4,4,8,8),(8,4,2,8),(8,4,4,8),(4,2,4,8),(4,8,4,8),(4,4,4,4),(4,4,4,16),(8,8,2,8),(4,32,4,8),(2,4,8,8)]),
                     ('LIST4', [(4,4,4,32),(4,4,8,16),(8,4,2,16),(4,8,4,16),(4,2,4,16),(4,4,2,32),(2,4,8,16),(4,1,4,16),(4,1,8,32),(4,4,4,16)]),
                     ('LIST6', [(4,1,8,32),(8,1,4,32),(8,1,2,32),(4,1,16,16),(8,1,4,16),(8,4,2,32),(8,2,2,16),(16,1,2,16),(16,4,1,16),(8,1,8,16),(4,1,8,16)])]:
    write(name, [sum_wide(*p) for p in params])
# bulk copies (LIST3: tiny,kb1 and kb0)
write('LIST3', [tma(*p) for p in [('relu',4,8,256,4),('relu',5,8,256,4),('relu',2,16,256,6),('relu',8,4,128,6),('gelu',4,8,256,4)]])
# kb0 shapes, three evaluations each (LIST5)
lines = []
for op in ('relu', 'gelu'):
    for T, U in [(128,1),(1024,1),(1024,2),(512,2),(256,4),(1024,4),(512,1)]:
        lines += [ew(op, T, U, 'plain')] * 3
write('LIST5', lines)
# size-adaptive relu/gelu (LIST9: kb0 x3, LIST9b: kb1 x2)
l0, l1 = [], []
for op in ('relu', 'gelu'):
    for TB, UB in ((512,2),(1024,1)):
        p = adaptive(op, TB, UB)
        l0 += [p] * 3
        l1 += [p] * 2
write('LIST9', l0)
write('LIST9b', l1)
