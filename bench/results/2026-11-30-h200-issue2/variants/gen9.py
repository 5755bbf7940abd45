OPS = {
 'relu': ('static __device__ __forceinline__ float f1(float v){return v != v ? v : (v > 0.f ? v : 0.f);}', 'level1/19_relu'),
 'gelu': ('static __device__ __forceinline__ float f1(float v){return 0.5f * v * (1.f + erff(v * 0.70710678118654752f));}', 'level1/26_gelu'),
}
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
l0=[]; l1=[]
for op in ('relu','gelu'):
    for TB,UB in ((512,2),(1024,1)):
        n,t = adaptive(op,TB,UB)
        l0 += [f'{n} {t} ok\n']*3
        l1 += [f'{n} {t} ok\n']*2
open('LIST9','w').write(''.join(l0))
open('LIST9b','w').write(''.join(l1))
