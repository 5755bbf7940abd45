/*
 * kernelrl: unary kernels of the op family "eltwise" (leaky_relu, sigmoid,
 * tanh, elu/selu, hardsigmoid, softplus, hardtanh, pow_scalar, mish, abs,
 * sqrt, log, exp, hardswish, add_scalar, rsub_scalar, clamp_min,
 * minimum/maximum with a scalar), the ops of a float and a bool mask
 * (dropout_apply's scale, masked_fill) and the float == scalar comparison
 * (the last two are kernels of the reduce family's logsumexp).
 *
 * Each is launched by the family's one launch structure (ewlaunch.cuh,
 * shared with elementwise.cu), that of PyTorch's
 * vectorized_elementwise_kernel (ATen Loops.cuh / CUDALoops.cuh): 128
 * threads per block, one float4 per thread, one block per 512 elements;
 * the last, partial block and misaligned pointers take the scalar path
 * (PyTorch's unrolled_elementwise_kernel).
 *
 * Each op is a functor whose body is the float formula of the PyTorch CUDA
 * kernel it stands for (opmath float, the accurate libdevice functions,
 * never the __expf-style intrinsics), so NaN propagation and rounding
 * follow PyTorch's.
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#include "ops/eltwise/eltwise.h"
#include "ops/eltwise/ewlaunch.cuh"

/* ==== The ops ==== */

/* F.leaky_relu: leaky_relu_kernel (ActivationLeakyReluKernel.cu). NaN goes
 * to the multiply and stays NaN. */
struct op_leaky_relu {
	float slope;
	__device__ float operator()(float x) const
	{
		return x > 0.f ? x : x * slope;
	}
};

/* torch.sigmoid: sigmoid_kernel_cuda (UnarySpecialOpsKernel.cu). */
struct op_sigmoid {
	__device__ float operator()(float x) const
	{
		return 1.f / (1.f + expf(-x));
	}
};

/* torch.tanh: tanh_kernel_cuda (UnaryGeometricTanhKernel.cu). */
struct op_tanh {
	__device__ float operator()(float x) const { return tanhf(x); }
};

/* F.elu / torch.selu: elu_kernel (ActivationEluKernel.cu) with
 * input_scale 1: x > 0 ? x * poscoef : expm1(x) * negcoef, where negcoef
 * = alpha * scale was formed in float on the host. */
struct op_elu {
	float negcoef, poscoef;
	__device__ float operator()(float x) const
	{
		return x > 0.f ? x * poscoef : expm1f(x) * negcoef;
	}
};

/* F.hardsigmoid: hardsigmoid_kernel (ActivationHardsigmoidKernel.cu):
 * min(max(x + 3, 0), 6) * (1/6) with std::min/max, which keep a NaN first
 * operand. */
struct op_hardsigmoid {
	__device__ float operator()(float x) const
	{
		float t = x + 3.f;
		t = t < 0.f ? 0.f : t;
		t = 6.f < t ? 6.f : t;
		return t * (1.f / 6.f);
	}
};

/* F.softplus: softplus_kernel (ActivationSoftplusKernel.cu): linear above
 * the threshold, log1p(exp(beta x)) / beta below it. */
struct op_softplus {
	float beta, threshold;
	__device__ float operator()(float x) const
	{
		float bx = x * beta;
		return bx > threshold ? x : log1pf(expf(bx)) / beta;
	}
};

/* F.hardtanh is at::clamp with two scalars: clamp_scalar_kernel_impl
 * (TensorCompare.cu): NaN passes through, else min(max(x, lo), hi). */
struct op_hardtanh {
	float lo, hi;
	__device__ float operator()(float x) const
	{
		if (x != x)
			return x;
		return fminf(fmaxf(x, lo), hi);
	}
};

/* torch.pow(x, exponent): PowKernel.cu picks a kernel by exponent on the
 * host; one functor per choice. */
struct op_pow2 {
	__device__ float operator()(float x) const { return x * x; }
};
struct op_pow3 {
	__device__ float operator()(float x) const { return x * x * x; }
};
struct op_powm2 {
	__device__ float operator()(float x) const { return 1.f / (x * x); }
};
struct op_sqrt {
	__device__ float operator()(float x) const { return sqrtf(x); }
};
struct op_rsqrt {
	__device__ float operator()(float x) const { return rsqrtf(x); }
};
struct op_recip {
	__device__ float operator()(float x) const { return 1.f / x; }
};
struct op_one {
	__device__ float operator()(float) const { return 1.f; }
};
struct op_pow {
	float e;
	__device__ float operator()(float x) const { return powf(x, e); }
};

/* F.mish: mish_kernel (ActivationMishKernel.cu): x * tanh(softplus(x)),
 * softplus as log1p(exp(x)). Above softplus's threshold 20 the linear
 * branch x gives the same float: tanhf of anything above 9.1 is 1, and an
 * exp that overflows gives log1p(inf) = inf, tanh(inf) = 1. */
struct op_mish {
	__device__ float operator()(float x) const
	{
		return x * tanhf(log1pf(expf(x)));
	}
};

/* torch.abs, torch.sqrt (op_sqrt above), torch.log: one elementwise
 * kernel each, fabsf / sqrtf / logf of the float. */
struct op_abs {
	__device__ float operator()(float x) const { return fabsf(x); }
};
struct op_log {
	__device__ float operator()(float x) const { return logf(x); }
};

/* x + alpha and alpha - x with a Python scalar alpha: one elementwise
 * kernel each (add / rsub of a tensor and a wrapped scalar). */
struct op_add_scalar {
	float alpha;
	__device__ float operator()(float x) const { return x + alpha; }
};
struct op_rsub_scalar {
	float alpha;
	__device__ float operator()(float x) const { return alpha - x; }
};

/* torch.clamp_min: NaN propagates, else fmaxf(x, min). */
struct op_clamp_min {
	float lo;
	__device__ float operator()(float x) const
	{
		return x != x ? x : fmaxf(x, lo);
	}
};

/* F.hardswish: hardswish_kernel (ActivationHardswishKernel.cu):
 * x * min(max(x + 3, 0), 6) / 6, a true division; the std::max/min
 * comparisons keep a NaN. */
struct op_hardswish {
	__device__ float operator()(float x) const
	{
		float t = x + 3.f;
		t = t < 0.f ? 0.f : t;
		t = 6.f < t ? 6.f : t;
		return x * t / 6.f;
	}
};

/* torch.exp: exp_kernel_cuda, the accurate expf. */
struct op_exp {
	__device__ float operator()(float x) const { return expf(x); }
};

/* torch.minimum / torch.maximum with a CPU scalar: the scalar is an
 * argument of the kernel (opmath_symmetric_gpu_kernel_with_scalars); a NaN
 * x is the result. */
struct op_minimum {
	float v;
	__device__ float operator()(float x) const
	{
		return x != x ? x : fminf(x, v);
	}
};
struct op_maximum {
	float v;
	__device__ float operator()(float x) const
	{
		return x != x ? x : fmaxf(x, v);
	}
};

/* Ops of x and a mask m as 0.f / 1.f (rd_mask). */
struct op_mask_scale {
	float scale;
	__device__ float operator()(float x, float m) const
	{
		/* fused_dropout: x * mask * scale, so a dropped NaN or inf
		 * is NaN, as in PyTorch */
		return x * m * scale;
	}
};
struct op_mask_fill {
	float v;
	__device__ float operator()(float x, float m) const
	{
		return m != 0.f ? v : x;
	}
};

/* x == v as 1.f / 0.f, stored as a bool byte by ew_run. */
struct op_eq {
	float v;
	__device__ float operator()(float x) const
	{
		return x == v ? 1.f : 0.f;
	}
};

/* ==== Launch ==== */

/* One launch of functor f over n elements (ewlaunch.cuh); the cudaError_t
 * as an int. */
template <typename F>
static int el_launch(const float *x, float *y, int64_t n, F f,
                     cudaStream_t s)
{
	return ew_run(rd_unary{x}, y, n, ew_unary<F>{f}, s);
}

/* pow by a scalar exponent: PyTorch's host-side choice of kernel
 * (pow_tensor_scalar_kernel and pow_out's special cases): 0 fills ones,
 * 1 copies, 0.5 / -0.5 / -1 are sqrt / rsqrt / reciprocal, 2, 3 and -2
 * are products, anything else powf. */
static int el_pow(const float *x, float *y, int64_t n, float e,
                  cudaStream_t s)
{
	if (e == 0.f)
		return el_launch(x, y, n, op_one(), s);
	if (e == 1.f) {
		if (n <= 0 || x == y)
			return 0;
		return (int)cudaMemcpyAsync(y, x, (size_t)n * sizeof(float),
		                            cudaMemcpyDeviceToDevice, s);
	}
	if (e == 0.5f)
		return el_launch(x, y, n, op_sqrt(), s);
	if (e == -0.5f)
		return el_launch(x, y, n, op_rsqrt(), s);
	if (e == -1.f)
		return el_launch(x, y, n, op_recip(), s);
	if (e == 2.f)
		return el_launch(x, y, n, op_pow2(), s);
	if (e == 3.f)
		return el_launch(x, y, n, op_pow3(), s);
	if (e == -2.f)
		return el_launch(x, y, n, op_powm2(), s);
	return el_launch(x, y, n, op_pow{e}, s);
}

extern "C" int krl_k_eltwise(krl_elt_op op, const float *x, float *y,
                             int64_t n, float p0, float p1, void *stream)
{
	cudaStream_t s = (cudaStream_t)stream;
	switch (op) {
	case KRL_ELT_LEAKY_RELU:
		return el_launch(x, y, n, op_leaky_relu{p0}, s);
	case KRL_ELT_SIGMOID:
		return el_launch(x, y, n, op_sigmoid(), s);
	case KRL_ELT_TANH:
		return el_launch(x, y, n, op_tanh(), s);
	case KRL_ELT_ELU:
		return el_launch(x, y, n, op_elu{p0, p1}, s);
	case KRL_ELT_HARDSIGMOID:
		return el_launch(x, y, n, op_hardsigmoid(), s);
	case KRL_ELT_SOFTPLUS:
		return el_launch(x, y, n, op_softplus{p0, p1}, s);
	case KRL_ELT_HARDTANH:
		return el_launch(x, y, n, op_hardtanh{p0, p1}, s);
	case KRL_ELT_POW_SCALAR:
		return el_pow(x, y, n, p0, s);
	case KRL_ELT_MISH:
		return el_launch(x, y, n, op_mish(), s);
	case KRL_ELT_ABS:
		return el_launch(x, y, n, op_abs(), s);
	case KRL_ELT_SQRT:
		return el_launch(x, y, n, op_sqrt(), s);
	case KRL_ELT_LOG:
		return el_launch(x, y, n, op_log(), s);
	case KRL_ELT_ADD_SCALAR:
		return el_launch(x, y, n, op_add_scalar{p0}, s);
	case KRL_ELT_RSUB_SCALAR:
		return el_launch(x, y, n, op_rsub_scalar{p0}, s);
	case KRL_ELT_CLAMP_MIN:
		return el_launch(x, y, n, op_clamp_min{p0}, s);
	case KRL_ELT_HARDSWISH:
		return el_launch(x, y, n, op_hardswish(), s);
	case KRL_ELT_EXP:
		return el_launch(x, y, n, op_exp(), s);
	case KRL_ELT_MINIMUM:
		return el_launch(x, y, n, op_minimum{p0}, s);
	case KRL_ELT_MAXIMUM:
		return el_launch(x, y, n, op_maximum{p0}, s);
	}
	return (int)cudaErrorInvalidValue;
}

/* One vectorised kernel over x and the mask, as TensorIterator runs
 * masked_scale and masked_fill_ on contiguous operands (4 floats and 4
 * mask bytes a thread). */
extern "C" int krl_k_masked(krl_mask_op op, const float *x,
                            const unsigned char *m, float *y, int64_t n,
                            float p, void *stream)
{
	cudaStream_t s = (cudaStream_t)stream;
	switch (op) {
	case KRL_MASK_SCALE:
		return ew_run(rd_mask{x, m}, y, n, op_mask_scale{p}, s);
	case KRL_MASK_FILL:
		return ew_run(rd_mask{x, m}, y, n, op_mask_fill{p}, s);
	}
	return (int)cudaErrorInvalidValue;
}

extern "C" int krl_k_eq_scalar(const float *x, unsigned char *m, int64_t n,
                               float v, void *stream)
{
	return ew_run(rd_unary{x}, m, n, ew_unary<op_eq>{op_eq{v}},
	              (cudaStream_t)stream);
}

/* masked_fill_ with a mask broadcast to x: TensorIterator finds the mask
 * not contiguous and runs the legacy unrolled kernel with its
 * OffsetCalculator (x and y read and written at i, the mask's offset
 * divided out); when nothing broadcasts after merging dims, the
 * vectorised kernel, as krl_k_masked. */
extern "C" int krl_k_masked_fill_bcast(const float *x, const unsigned char *m,
                                       float *y, int nd, const int64_t *dim,
                                       const int64_t *mstride, float v,
                                       void *stream)
{
	cudaStream_t s = (cudaStream_t)stream;
	int64_t xs[KRL_MAX_DIM], st = 1;
	for (int i = nd - 1; i >= 0; i--) {
		xs[i] = st;
		st *= dim[i];
	}
	Bcast g;
	int64_t n = bcast_merge(g, nd, dim, xs, mstride);
	if (g.nd == 0 || (g.nd == 1 && g.bstride[0] == 1))
		return krl_k_masked(KRL_MASK_FILL, x, m, y, n, v, stream);
	if (n <= 0xffffffffLL) {
		bcast_dividers(g);
		rd_bcast<uint32_t, true, unsigned char> rd{x, m, g};
		return ew_run(rd, y, n, op_mask_fill{v}, s);
	}
	rd_bcast<int64_t, true, unsigned char> rd{x, m, g};
	return ew_run(rd, y, n, op_mask_fill{v}, s);
}

/* `t == v` on a strided t (a slice): the legacy unrolled kernel with x's
 * offset divided out; a contiguous x takes krl_k_eq_scalar. */
extern "C" int krl_k_eq_scalar_strided(const float *x, unsigned char *m,
                                       int nd, const int64_t *dim,
                                       const int64_t *xstride, float v,
                                       void *stream)
{
	cudaStream_t s = (cudaStream_t)stream;
	int64_t zero[KRL_MAX_DIM] = { 0 };
	Bcast g;
	int64_t n = bcast_merge(g, nd, dim, xstride, zero);
	if (g.nd == 0 || (g.nd == 1 && g.astride[0] == 1))
		return krl_k_eq_scalar(x, m, n, v, stream);
	ew_unary<op_eq> f{op_eq{v}};
	if (n <= 0xffffffffLL) {
		bcast_dividers(g);
		rd_bcast<uint32_t, false, void> rd{x, nullptr, g};
		return ew_run(rd, m, n, f, s);
	}
	rd_bcast<int64_t, false, void> rd{x, nullptr, g};
	return ew_run(rd, m, n, f, s);
}

/* ~m on bool bytes (logical not; any nonzero byte is true): PyTorch's
 * bitwise_not_kernel_cuda for bool, `!a`, a vectorised elementwise kernel
 * of 128 threads moving 4 bytes each (one uchar4), the last block and
 * misaligned pointers strided byte by byte. */
static __global__ void __launch_bounds__(EW_THREADS)
not_kernel(const unsigned char *__restrict__ x, unsigned char *__restrict__ y,
           int64_t n, bool vec)
{
	int64_t base = (int64_t)blockIdx.x * EW_BLOCK_WORK;
	int64_t remaining = n - base;
	if (vec && remaining >= EW_BLOCK_WORK) {
		int64_t i = base + (int64_t)threadIdx.x * EW_VEC;
		uchar4 v = __ldg(reinterpret_cast<const uchar4 *>(x + i));
		*reinterpret_cast<uchar4 *>(y + i) =
			make_uchar4(!v.x, !v.y, !v.z, !v.w);
		return;
	}
	for (int k = threadIdx.x; k < remaining && k < EW_BLOCK_WORK;
	     k += EW_THREADS)
		y[base + k] = !__ldg(x + base + k);
}

extern "C" int krl_k_bitwise_not(const unsigned char *x, unsigned char *y,
                                 int64_t n, void *stream)
{
	if (n <= 0)
		return 0;
	int64_t blocks = (n + EW_BLOCK_WORK - 1) / EW_BLOCK_WORK;
	if (blocks > 0x7fffffff)
		return (int)cudaErrorInvalidConfiguration;
	bool vec = aligned_to(x, 4) && aligned_to(y, 4);
	not_kernel<<<(unsigned)blocks, EW_THREADS, 0, (cudaStream_t)stream>>>(
		x, y, n, vec);
	return (int)cudaGetLastError();
}
