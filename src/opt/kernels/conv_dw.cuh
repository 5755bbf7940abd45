/* ---- kernelrl's depthwise convolution (src/opt/kernels/conv_dw.cuh) ---- */

/*
 * A 2-d depthwise convolution (groups = C input channels, K = C x mult
 * output channels) on NCHW tensors, exact fp32:
 *
 *     y[z, k, oh, ow] = sum over i < KH, j < KW of
 *                       w[k, 0, i, j] * x[z, k / mult, oh SH - ph + i DH,
 *                                                      ow SW - pw + j DW]
 *
 * zeros where a tap falls in the padding. A block is 8 warps over one
 * plane (z, k): a warp's lanes are 32 adjacent output columns, each thread
 * ROWS adjacent output rows of its column. A thread walks the input rows
 * its ROWS outputs reach (SPAN of them) once, reads each row's KW taps
 * (adjacent lanes read adjacent columns: one or two sectors a warp) and
 * adds them into every output of its column that row feeds, so an input
 * row is read once a thread however many of its outputs use it; the
 * plane's KH x KW weights sit in registers. The kernel sizes, strides and
 * dilations of the shape set generated for are template constants: the
 * walk unrolls fully and which output a row feeds is decided at compile
 * time; a set with other ones (they are run-time arguments too) reads each
 * output's taps in turn (column_any). Taps are checked against x's bounds
 * (padding, and the
 * threads past the last row or column, which read nothing and store
 * nothing).
 *
 * The epilogue e(v, z, k, p), p = oh OW + ow, is applied to each output
 * before its one store, the bias (when given) added first: the same
 * functor as the implicit GEMM's (src/opt/codegen_conv.c).
 */
namespace dwconv {

constexpr int TW = 32;		/* output columns a block: a warp's lanes */
constexpr int TH = 8;		/* warps a block, stacked down the plane */

/* The geometry: x [N, C, H, W], w [K, 1, kh, kw], y [N, K, OH, OW]. */
struct geo {
	int C, H, W, K, OH, OW, mult;
	int kh, kw, sh, sw, ph, pw, dh, dw;
};

/* The identity epilogue: the convolution alone. */
struct ident {
	__device__ __forceinline__ float operator()(float v, int z, int k, int p) const
	{
		(void)z;
		(void)k;
		(void)p;
		return v;
	}
};

/* One thread's ROWS outputs from row oh0 down, in column ow, of plane
 * (z, k). */
template <int KH, int KW, int SH, int SW, int DH, int DW, int ROWS, bool BIAS,
          class E>
static __device__ __forceinline__ void column(const float *__restrict__ x,
					      const float *__restrict__ w,
					      const float *__restrict__ cb,
					      float *__restrict__ y,
					      const geo &q, int z, int k,
					      int oh0, int ow, const E &e)
{
	constexpr int SPAN = (ROWS - 1) * SH + (KH - 1) * DH + 1;
	float wk[KH * KW];
	const float *wp = w + (long)k * (KH * KW);
#pragma unroll
	for (int i = 0; i < KH * KW; i++)
		wk[i] = wp[i];
	const float *xp = x + ((long)z * q.C + k / q.mult) * q.H * q.W;
	const int ih0 = oh0 * SH - q.ph, iw0 = ow * SW - q.pw;
	bool cok[KW];
#pragma unroll
	for (int j = 0; j < KW; j++)
		cok[j] = (unsigned)(iw0 + j * DW) < (unsigned)q.W;
	float acc[ROWS];
#pragma unroll
	for (int o = 0; o < ROWS; o++)
		acc[o] = 0.f;
#pragma unroll
	for (int r = 0; r < SPAN; r++) {
		const int ih = ih0 + r;
		const bool rok = (unsigned)ih < (unsigned)q.H;
		const float *xr = xp + ih * q.W + iw0;
		float v[KW];
#pragma unroll
		for (int j = 0; j < KW; j++)
			v[j] = rok && cok[j] ? xr[j * DW] : 0.f;
		/* row r feeds output o through tap row (r - o SH) / DH */
#pragma unroll
		for (int o = 0; o < ROWS; o++) {
			const int t = r - o * SH;
			if (t < 0 || t % DH || t / DH >= KH)
				continue;
#pragma unroll
			for (int j = 0; j < KW; j++)
				acc[o] = fmaf(v[j], wk[(t / DH) * KW + j], acc[o]);
		}
	}
	const float bias = BIAS ? cb[k] : 0.f;
	float *yp = y + ((long)z * q.K + k) * q.OH * q.OW;
#pragma unroll
	for (int o = 0; o < ROWS; o++) {
		const int oh = oh0 + o;
		if (oh < q.OH) {
			const int p = oh * q.OW + ow;
			yp[p] = e(acc[o] + bias, z, k, p);
		}
	}
}

/* The same outputs for any kernel size, stride and dilation (q's): each
 * output's taps read in turn, through the cache. */
template <int ROWS, bool BIAS, class E>
static __device__ __forceinline__ void column_any(const float *__restrict__ x,
						  const float *__restrict__ w,
						  const float *__restrict__ cb,
						  float *__restrict__ y,
						  const geo &q, int z, int k,
						  int oh0, int ow, const E &e)
{
	const float *wp = w + (long)k * q.kh * q.kw;
	const float *xp = x + ((long)z * q.C + k / q.mult) * q.H * q.W;
	float *yp = y + ((long)z * q.K + k) * q.OH * q.OW;
	const float bias = BIAS ? cb[k] : 0.f;
	const int iw0 = ow * q.sw - q.pw;
	for (int o = 0; o < ROWS; o++) {
		const int oh = oh0 + o;
		if (oh >= q.OH)
			break;
		float acc = 0.f;
		for (int i = 0; i < q.kh; i++) {
			const int ih = oh * q.sh - q.ph + i * q.dh;
			if ((unsigned)ih >= (unsigned)q.H)
				continue;
			for (int j = 0; j < q.kw; j++) {
				const int iw = iw0 + j * q.dw;
				if ((unsigned)iw < (unsigned)q.W)
					acc = fmaf(xp[ih * q.W + iw], wp[i * q.kw + j], acc);
			}
		}
		const int p = oh * q.OW + ow;
		yp[p] = e(acc + bias, z, k, p);
	}
}

/* The kernel's body: blockIdx.x over (column tile, row tile), column
 * tiles fastest; blockIdx.y over the planes (z, k), striding by gridDim.y
 * past 65535 of them. The walk of the literal geometry (KH, KW, SH, SW,
 * DH, DW) where q's is that one, else column_any. */
template <int KH, int KW, int SH, int SW, int DH, int DW, int ROWS, bool BIAS,
          class E>
static __device__ __forceinline__ void entry(const float *__restrict__ x,
					     const float *__restrict__ w,
					     const float *__restrict__ cb,
					     float *__restrict__ y,
					     const geo &q, int nimg, const E &e)
{
	const int tw = (q.OW + TW - 1) / TW;
	const int ow = (int)(blockIdx.x % tw) * TW + (int)(threadIdx.x & 31);
	const int oh0 = ((int)(blockIdx.x / tw) * TH + (int)(threadIdx.x >> 5)) * ROWS;
	if (ow >= q.OW || oh0 >= q.OH)
		return;
	const bool lit = q.kh == KH && q.kw == KW && q.sh == SH && q.sw == SW &&
			 q.dh == DH && q.dw == DW;
	const long planes = (long)nimg * q.K;
	for (long pz = blockIdx.y; pz < planes; pz += gridDim.y) {
		const int z = (int)(pz / q.K), k = (int)(pz % q.K);
		if (lit)
			column<KH, KW, SH, SW, DH, DW, ROWS, BIAS>(x, w, cb, y, q,
								  z, k, oh0,
								  ow, e);
		else
			column_any<ROWS, BIAS>(x, w, cb, y, q, z, k, oh0, ow, e);
	}
}

} /* namespace dwconv */
