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

def sum_wide(W, S, UN):
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
extern "C" __global__ void __launch_bounds__(256)
sw(const float *__restrict__ x, float *__restrict__ y, long dim1, long dim2, long chunk)
{{
	__shared__ float red[8][32 * {W} + 1];
	const long c0 = (long)blockIdx.x * (32 * {W}) + threadIdx.x;
	const long b = blockIdx.y;
	const long lo = (long)blockIdx.z * chunk;
	const long hi = lo + chunk < dim1 ? lo + chunk : dim1;
	float acc[{W}];
#pragma unroll
	for (int w = 0; w < {W}; w++) acc[w] = 0.f;
	const float *p = x + b * dim1 * dim2;
	long i = lo + threadIdx.y;
	for (; i + ({UN} - 1) * 8 < hi; i += {UN} * 8) {{
		float v[{UN}][{W}];
#pragma unroll
		for (int k = 0; k < {UN}; k++)
#pragma unroll
			for (int w = 0; w < {W}; w++) {{
				long c = c0 + 32 * w;
				v[k][w] = c < dim2 ? p[(i + k * 8) * dim2 + c] : 0.f;
			}}
#pragma unroll
		for (int k = 0; k < {UN}; k++)
#pragma unroll
			for (int w = 0; w < {W}; w++) acc[w] += v[k][w];
	}}
	for (; i < hi; i += 8)
#pragma unroll
		for (int w = 0; w < {W}; w++) {{
			long c = c0 + 32 * w;
			if (c < dim2) acc[w] += p[i * dim2 + c];
		}}
#pragma unroll
	for (int w = 0; w < {W}; w++) red[threadIdx.y][threadIdx.x + 32 * w] = acc[w];
	__syncthreads();
	for (int t = threadIdx.y * 32 + threadIdx.x; t < 32 * {W}; t += 256) {{
		long c = (long)blockIdx.x * (32 * {W}) + t;
		if (c >= dim2) continue;
		float s = 0.f;
#pragma unroll
		for (int k = 0; k < 8; k++) s += red[k][t];
		{store}
	}}
}}
/*@plan
{zl}launch sw grid=(cdiv(dim(x, 2), {32*W}), dim(x, 0), {S}) block=(32, 8) args(x, y, dim(x, 1), dim(x, 2), cdiv(dim(x, 1), {S}))
@*/
'''
    name = f'sum_wide_W{W}S{S}U{UN}.cu'
    open(name, 'w').write(src)
    return name, 'level1/47_sum_dim'

lines = []
for T, U, L in [(128,1,'plain'),(128,2,'plain'),(128,4,'plain'),(256,1,'plain'),(256,2,'plain'),(512,1,'plain'),(64,1,'plain'),(128,1,'pf256'),(128,2,'pf256'),(128,1,'ldg'),(128,1,'pf128'),(1024,1,'plain')]:
    lines.append(ew('relu', T, U, L))
for T, U, L in [(128,1,'plain'),(128,2,'plain'),(256,2,'plain'),(128,1,'pf256')]:
    lines.append(ew('gelu', T, U, L))
for TY, UN in [(16,4),(32,4),(16,8),(8,8)]:
    lines.append(sum_rows(TY, UN))
for W, S, UN in [(4,1,4),(4,4,4),(4,16,4),(1,4,4),(1,16,8),(2,8,4)]:
    lines.append(sum_wide(W, S, UN))
with open('LIST', 'w') as fh:
    for n, t in lines:
        fh.write(f'{n} {t} ok\n')
print(len(lines))
