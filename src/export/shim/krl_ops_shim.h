/*
 * libkrl_ops: kernelrl's op library as a shared library with a plain C ABI,
 * for exported candidates (docs/export.md). An export's host code calls
 * krl_ops_call for every `call` of its plan; the op runs exactly as it runs
 * in kernelrl (the same cuBLASLt, cuDNN and own kernels), on the caller's
 * stream, in the caller's (primary) CUDA context.
 *
 * The generated kernels.cu repeats these declarations, so an export needs
 * only the library itself; keep the two in step (src/export/cuda.c).
 */
#ifndef KRL_OPS_SHIM_H
#define KRL_OPS_SHIM_H

#ifdef __cplusplus
extern "C" {
#endif

/* A contiguous row-major device tensor; dtype is kernelrl's krl_dtype
 * (0 f32, 1 f16, 2 bf16, 3 i32, 4 i64, 5 bool, 6 f64). */
typedef struct krl_ops_tensor {
	void *data;
	int dtype;
	int ndim;
	long long dim[8];
} krl_ops_tensor;

/*
 * Runs op `op` (a plan's `call`) on stream (a cudaStream_t; NULL: the
 * legacy default stream) with attributes keys[i] = vals[i]. Returns 0, or
 * -1 with the reason in krl_ops_error(). The first call on a stream creates
 * the op context of that stream (cuBLASLt handle, workspace; not allowed
 * while the stream is being captured into a CUDA graph: run once before
 * capturing). Thread-safe.
 */
int krl_ops_call(const char *op, const krl_ops_tensor *in, int nin,
                 const krl_ops_tensor *out, int nout, int nattr,
                 const char *const *keys, const double *vals, void *stream);
/* The calling thread's last error message ("" if none). */
const char *krl_ops_error(void);

#ifdef __cplusplus
}
#endif
#endif
