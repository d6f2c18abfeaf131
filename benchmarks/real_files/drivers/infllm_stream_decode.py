"""Corpus driver (kx's code): thunlp/InfLLM's StreamingLLM attention (inf_llm/attention/
stream_llm.py: stream_llm_forward, the attention function InfLLM patches into HF models for its
"stream-llm" baseline: attention sinks (the first n_init tokens, re-rotated to one fixed angle) plus
a sliding local window of n_local tokens, the KV cache cut to sinks + window after each call)
computed by TritonMultiStageDotProductionAttention (dot_production_attention/triton_impl.py: a
two-stage flash attention whose first stage takes the local window with a sliding-window mask and
whose second adds the sink tokens under the complementary mask, merging the online-softmax
state in between) with RotaryEmbeddingESM, driven as a greedy decode loop on a Llama-style
model with random weights (4 layers, d 4096, 32 q / 8 kv heads, head dim 128, SwiGLU 14336,
vocab 32000, fp16): a 3000-token prompt with n_init 64 / n_local 1024 (so the cache is cut
from the first call), then 48 generated tokens. Every step's logits are checked against the
same model run through InfLLM's PyTorch multi-stage attention (fattn=False: torch_impl.py), fed
the same tokens."""

import _corpus13_support as S
import torch

S.bare_package("inf_llm")  # not its __init__ (utils/patch: transformers)
from inf_llm.attention.rope import RotaryEmbeddingESM  # noqa: E402
from inf_llm.attention.stream_llm import stream_llm_forward  # noqa: E402

torch.manual_seed(0)
dev, dt = "cuda", torch.float16
VOCAB, D, H, KV, FF, LAYERS = S.pick((32000, 4096, 32, 8, 14336, 4), (128, 256, 4, 2, 512, 1))
PROMPT, NEW, N_INIT, N_LOCAL = S.pick((3000, 48, 64, 1024), (150, 4, 4, 64))


def build(fattn):
    rope = RotaryEmbeddingESM(D // H, base=10000)  # its inv_freq is built on "cuda"
    fwd = stream_llm_forward(N_LOCAL, N_INIT, fattn)
    return S.infllm_style_model(VOCAB, D, H, KV, FF, LAYERS, fwd, rope, dev, dt)


fast, ref = build(True), build(False)  # same seed: same weights
prompt = torch.randint(0, VOCAB, (1, PROMPT), device=dev)
errs, agree = [], 0
with torch.inference_mode():
    lf, pf = fast(prompt)
    lr, pr = ref(prompt)
    errs.append(S.rel_err(lf, lr))
    for step in range(NEW):
        tok = lf[:, -1].argmax(-1, keepdim=True)
        agree += int(tok.item() == lr[:, -1].argmax(-1).item())
        lf, pf = fast(tok, pf)
        lr, pr = ref(tok, pr)
        errs.append(S.rel_err(lf, lr))
cache = pf[0][0].shape[-2]
print(
    f"prompt {PROMPT} + {NEW} tokens, cache {cache} (sinks {N_INIT} + window {N_LOCAL}): "
    f"worst step rel err {max(errs):.1e}, argmax agreement {agree}/{NEW}"
)
torch.cuda.synchronize()
print("infllm_stream_decode ok")
