/*
 * Level 3 problem 50 (ReLUSelfAttention), fast candidate:
 *     qkv = x @ Wᵀ + b; q, k, v heads; att = relu(masked_fill(q kᵀ / sqrt(hd),
 *     causal == 0, -inf)); y = att v (heads back in place)
 * x [16, 1024, 768] at kb1 (12 heads of 64); strict fp32 tier.
 *
 * The reference runs PyTorch's kernels: the Linear, one permute copy of
 * qkv into head-major q, k, v, a batched SGEMM for q kᵀ, then four passes
 * over the [192, 1024, 1024] scores (805 MB each): the scale, a copy, the
 * masked_fill and the relu, then the SGEMM with v and the permute back.
 *
 * Here the scale is the first GEMM's alpha (1/8 is a power of two, so
 * alpha * acc rounds exactly as the reference's separate multiply), and
 * one kernel does what the masked_fill and relu do: a score whose causal
 * buffer entry is 0 becomes relu(-inf) = 0, the others relu(score) (NaN
 * kept, as torch.relu keeps it). The mask is read from the task's constant
 * buffer `bias` (tril(1), [1, 1, max_seqlen, max_seqlen]) as the Model
 * reads self.bias[:, :, :T, :T], not assumed. The four score passes (~6.4
 * GB of traffic) become one in-place pass (1.6 GB): measured 1.35x at kb1
 * on the H200 (graph timing, 2026-12-02), where the three GEMMs (~110
 * GFLOP) are about two thirds of the time.
 */

extern "C" __global__ void causal_relu(float *__restrict__ att, const float *__restrict__ bias,
				       long n, long T, long Tmax)
{
	for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n;
	     i += (long)gridDim.x * blockDim.x) {
		const long j = i % T;
		const long r = (i / T) % T;
		float v = att[i];
		if (bias[r * Tmax + j] == 0.f)
			v = 0.f;	/* masked_fill(-inf), then relu */
		else
			v = v != v ? v : (v > 0.f ? v : 0.f);
		att[i] = v;
	}
}

/*@plan
buffer qkv f32 [batch_size, seq_len, 3 * n_embd]
view qkv5 = qkv [batch_size, seq_len, 3, n_head, head_dim]
buffer qkvh f32 [3, batch_size, n_head, seq_len, head_dim]
view q = qkvh [batch_size * n_head, seq_len, head_dim]
view k = qkvh [batch_size * n_head, seq_len, head_dim] offset=batch_size * n_head * seq_len * head_dim
view v = qkvh [batch_size * n_head, seq_len, head_dim] offset=2 * batch_size * n_head * seq_len * head_dim
buffer att f32 [batch_size * n_head, seq_len, seq_len]
buffer yh f32 [batch_size * n_head, seq_len, head_dim]
view yh4 = yh [batch_size, n_head, seq_len, head_dim]
view out4 = y [batch_size, seq_len, n_head, head_dim]
call linear(x, c_attn_w, c_attn_b) -> qkv
call permute(qkv5) -> qkvh p0=2 p1=0 p2=3 p3=1 p4=4
call gemm(q, k) -> att tb=1 alpha=attn_scale
launch causal_relu grid=(sm_count * 32) block=(256) args(att, bias, batch_size * n_head * seq_len * seq_len, seq_len, max_seqlen)
call gemm(att, v) -> yh
call permute(yh4) -> out4 p0=0 p1=2 p2=1 p3=3
@*/
