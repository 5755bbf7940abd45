/*
 * kernelrl: private declarations of the op family "rnn" (family.c, run.c;
 * docs/ops-rnn.md): the recurrent layers nn.LSTM and nn.GRU as
 * PyTorch runs them on CUDA (one cuDNN RNN forward call in training mode;
 * a batch_first input's seq-major copy is the shape family's strided
 * copy, the kernel PyTorch's .contiguous() runs).
 *
 * The one fact family.c (the checks, the float64 golden versions) and
 * run.c (the GPU drivers) must agree on is where each weight matrix and
 * bias lives in the flat weight `w`: the layout below, which is cuDNN's
 * weight space for CUDNN_RNN_DOUBLE_BIAS and PyTorch's flattened weight
 * buffer (docs/ops-rnn.md). run.c checks it against cuDNN's own answer
 * (cudnnGetRNNWeightParams) before the first call of each shape.
 */
#ifndef KRL_OPS_RNN_H
#define KRL_OPS_RNN_H

#include <stdint.h>

#include "ops/ops_int.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The sizes of one lstm or gru call. gates: 4 (LSTM: i, f, g, o) or 3
 * (GRU: r, z, n); T steps, B sequences, I input features, H hidden
 * features, `layers` stacked layers, dirs 1 or 2 (bidirectional). */
typedef struct krl_rnn_geom {
	int gates;
	int64_t T, B, I, H;
	int layers, dirs, batch_first;
} krl_rnn_geom;

/* The geometry of a call whose check() passed: x is in[0], h0 in[1]. */
krl_rnn_geom krl_rnn_geom_of(int gates, const krl_tensor *in,
                             const krl_attrs *a);

/* Input features of layer l: I for layer 0, dirs * H above it. */
int64_t krl_rnn_layer_in(const krl_rnn_geom *g, int l);

/*
 * The weight layout, in elements of w. Pseudo-layer p = l * dirs + dir
 * (dir 1 is the reverse direction) is one block, the blocks in order of
 * p; block p holds first the matrices of linear-layer ids 0 .. 2*gates-1
 * (ids 0 .. gates-1 the input matrices W [H, in_l], ids gates .. 2*gates-1
 * the recurrent ones R [H, H], each row-major, gate order LSTM i, f, g, o,
 * GRU r, z, n), then the biases of the same ids (b_W then b_R, [H] each).
 * So the input matrices of a block are PyTorch's weight_ih_l{l}[_reverse]
 * [gates*H, in_l], then weight_hh, bias_ih and bias_hh.
 */
int64_t krl_rnn_mat_off(const krl_rnn_geom *g, int p, int lin);
int64_t krl_rnn_bias_off(const krl_rnn_geom *g, int p, int lin);
/* Elements of the whole layout (w's numel). */
int64_t krl_rnn_weight_count(const krl_rnn_geom *g);

/* Frees the family's state in an op context (run.c). */
void krl_rnn_state_free(void *state);

/* ==== GPU drivers (run.c) ==== */

KRL_RUN(lstm); KRL_RUN(gru);

#ifdef __cplusplus
}
#endif
#endif
