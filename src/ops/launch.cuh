/*
 * kernelrl: host-side launch helpers the op library's .cu files share
 * (CUDA only; include it from .cu files):
 * - grid_for: the grid of a grid-stride kernel;
 * - by_esize: for the copies that move elements as bits whatever their
 *   dtype (gathers, cat, fill, pad, roll).
 */
#ifndef KRL_OPS_LAUNCH_CUH
#define KRL_OPS_LAUNCH_CUH

#include <stdint.h>

/* Blocks for n items at per_block items a block, at least 1 and at most
 * 2^31 - 1 (the kernels loop over the rest). */
static inline unsigned grid_for(int64_t n, int per_block)
{
	int64_t g = (n + per_block - 1) / per_block;
	if (g > 0x7fffffff)
		g = 0x7fffffff;
	return (unsigned)(g < 1 ? 1 : g);
}

/* Calls f(T()) with T the unsigned integer type of esize bytes (1, 2 or 8;
 * any other size: 4). */
template <class F>
static void by_esize(int esize, F f)
{
	switch (esize) {
	case 1:
		f(uint8_t());
		break;
	case 2:
		f(uint16_t());
		break;
	case 8:
		f(uint64_t());
		break;
	default:
		f(uint32_t());
		break;
	}
}

#endif
