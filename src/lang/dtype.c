/* kernelrl: element types of buffers (include/krl/lang.h, "Data types"). */
#include <string.h>

#include "krl/lang.h"

static const struct {
	const char *name;
	size_t size;
} krl_dtypes[KRL_DTYPE_COUNT] = {
	[KRL_F32] = { "f32", 4 },
	[KRL_F16] = { "f16", 2 },
	[KRL_BF16] = { "bf16", 2 },
	[KRL_I32] = { "i32", 4 },
	[KRL_I64] = { "i64", 8 },
	[KRL_BOOL] = { "bool", 1 },
	[KRL_F64] = { "f64", 8 },
};

/* Bytes per element; 0 for an out-of-range value. */
size_t krl_dtype_size(krl_dtype t)
{
	if ((unsigned)t >= KRL_DTYPE_COUNT)
		return 0;
	return krl_dtypes[t].size;
}

/* The dtype's name as written in task files; "?" when out of range. */
const char *krl_dtype_name(krl_dtype t)
{
	if ((unsigned)t >= KRL_DTYPE_COUNT)
		return "?";
	return krl_dtypes[t].name;
}

int krl_dtype_parse(const char *z, krl_dtype *out)
{
	if (!z)
		return -1;
	for (int i = 0; i < KRL_DTYPE_COUNT; i++) {
		if (strcmp(z, krl_dtypes[i].name) == 0) {
			if (out)
				*out = (krl_dtype)i;
			return 0;
		}
	}
	return -1;
}
