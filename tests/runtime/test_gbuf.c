/*
 * Guarded buffers on the CPU (src/runtime/gbuf.c): sizes past
 * KRL_MAX_BUFFER_BYTES are refused before any CUDA call, so the rounding
 * to 256 bytes and the guards can never wrap around SIZE_MAX (a buffer of
 * SIZE_MAX bytes used to pass validation and wrap). Allocation itself is
 * tested on the GPU (gpu_check.c, judge/gpu_*.c).
 */
#include <stdint.h>
#include <string.h>

#include "testutil.h"
#include "krl/runtime.h"

static void refuses_sizes_past_the_cap(void **state)
{
	(void)state;
	const size_t sizes[] = {SIZE_MAX, SIZE_MAX - 255, KRL_MAX_BUFFER_BYTES + 1,
	                        (size_t)1 << 63};
	for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
		krl_gbuf b;
		krl_diag d = {0};
		memset(&b, 0x5a, sizeof b);
		assert_int_equal(krl_gbuf_alloc(&b, sizes[i], NULL, &d),
		                 KRL_EDEVMEM);
		assert_null(b.base);
		assert_non_null(strstr(d.msg, "larger than any device memory"));
		/* freeing what was never allocated is a no-op */
		krl_gbuf_free(&b);
		/* a well-formed handle for such a size: refused before CUDA */
		char hex[129];
		memset(hex, '0', 128);
		hex[128] = 0;
		krl_gbuf b2;
		assert_int_equal(krl_gbuf_import(&b2, hex, sizes[i], &d),
		                 KRL_EINVAL);
		assert_non_null(strstr(d.msg, "past the limit"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(refuses_sizes_past_the_cap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
