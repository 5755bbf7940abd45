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

/* The sizes of one lstm, gru or rnn_tanh call. gates: 4 (LSTM: i, f, g,
 * o), 3 (GRU: r, z, n) or 1 (tanh RNN); T steps, B sequences, I input features, H hidden
 * features, `layers` stacked layers, dirs 1 or 2 (bidirectional). */
typedef struct krl_rnn_geom {
	int gates;
	int64_t T, B, I, H;
	int layers, dirs, batch_first;
	int rec;                  /* recurrence: KRL_REC_* */
} krl_rnn_geom;

/* The `recurrence` attribute (a word, krl_attr_words): which cuDNN RNN
 * algorithm runs and in which forward mode. KRL_REC_STANDARD is what
 * PyTorch runs for a module in training mode (the reference's); the
 * others run in inference mode (no reserve space is written: the
 * outputs are the same, the gates' activations kept for a backward pass
 * are not). */
enum {
	KRL_REC_STANDARD = 0,     /* CUDNN_RNN_ALGO_STANDARD, training mode */
	KRL_REC_INFER = 1,        /* CUDNN_RNN_ALGO_STANDARD, inference */
	KRL_REC_PERSIST = 2,      /* CUDNN_RNN_ALGO_PERSIST_STATIC, inference */
	KRL_REC_SMALL_H = 3,      /* ..._PERSIST_STATIC_SMALL_H, inference */
};

/* The geometry of a call whose check() passed: x is in[0], h0 in[1]. */
krl_rnn_geom krl_rnn_geom_of(int gates, const krl_tensor *in,
                             const krl_attrs *a);

/* Input features of layer l: I for layer 0, dirs * H above it. */
int64_t krl_rnn_layer_in(const krl_rnn_geom *g, int l);

/*
 * The weight layout, in elements of w (cuDNN 9's weight space, as
 * cudnnGetRNNWeightParams reports it on the H200: every matrix first, then
 * every bias). Pseudo-layer p = l * dirs + dir (dir 1 is the reverse
 * direction): first the matrices of all pseudo-layers in order of p, each
 * pseudo-layer's those of linear-layer ids 0 .. 2*gates-1 (ids 0 ..
 * gates-1 the input matrices W [H, in_l], ids gates .. 2*gates-1 the
 * recurrent ones R [H, H], each row-major, gate order LSTM i, f, g, o, GRU
 * r, z, n); then the biases of all pseudo-layers in order of p, each
 * pseudo-layer's those of the same ids (b_W then b_R, [H] each). So
 * pseudo-layer p's input matrices are PyTorch's weight_ih_l{l}[_reverse]
 * [gates*H, in_l], followed by weight_hh; bias_ih and bias_hh sit in the
 * bias region.
 */
int64_t krl_rnn_mat_off(const krl_rnn_geom *g, int p, int lin);
int64_t krl_rnn_bias_off(const krl_rnn_geom *g, int p, int lin);
/* Elements of the whole layout (w's numel). */
int64_t krl_rnn_weight_count(const krl_rnn_geom *g);

/* Frees the family's state in an op context (run.c). */
void krl_rnn_state_free(void *state);

/* ==== GPU drivers (run.c) ==== */

KRL_RUN(lstm); KRL_RUN(gru); KRL_RUN(rnn_tanh);

#ifdef __cplusplus
}
#endif
#endif
