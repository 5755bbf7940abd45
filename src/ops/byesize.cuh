/*
 * kernelrl: by_esize, for the op library's copies that move elements as
 * bits whatever their dtype (gathers, cat, fill, pad, roll): calls f(T())
 * with T the unsigned integer type of esize bytes (1, 2 or 8; any other
 * size: 4). CUDA only; include it from .cu files.
 */
#ifndef KRL_OPS_BYESIZE_CUH
#define KRL_OPS_BYESIZE_CUH

#include <stdint.h>

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
