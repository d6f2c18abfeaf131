"""Corpus driver (kx's code): thunlp/InfLLM's context-memory attention (inf_llm/attention/
inf_llm.py: inf_llm_forward -> context_manager.py ContextManager: the prompt processed in
exc_block_size chunks; the tokens leaving the local window are cut into memory blocks of
block_size, each represented by its repr_topk highest-scoring keys; per chunk and per decode step
the top-k blocks by query . representative-key score (`.topk(...).tolist()` on the host) are
loaded from host memory into a GPU block cache with LRU eviction and attended together with the
n_init initial tokens and the local window; the attention and the block scores come from
TritonMultiStageDotProductionAttention's two-stage flash attention and its score kernel
(dot_production_attention/triton_impl.py)), driven as a greedy decode loop on a Llama-style model
with random weights (4 layers, d 4096, 32 q / 8 kv heads, head dim 128, SwiGLU 14336, vocab
32000, fp16): a 6000-token prompt with InfLLM's settings scaled down (n_init 128, n_local 2048,
block 128, topk 8, repr_topk 4, exc_block_size 512, 16 cached blocks), then 32 generated tokens.
Every step's logits are checked against the same model run with InfLLM's PyTorch attention
(fattn=False), fed the same tokens (near-tied block scores can pick other blocks, so a few steps
may differ more than rounding)."""

import _corpus13_support as S
import torch

S.bare_package("inf_llm")  # not its __init__ (utils/patch: transformers)
from inf_llm.attention.inf_llm import inf_llm_forward  # noqa: E402
from inf_llm.attention.rope import RotaryEmbeddingESM  # noqa: E402

torch.manual_seed(0)
dev, dt = "cuda", torch.float16
VOCAB, D, H, KV, FF, LAYERS = S.pick((32000, 4096, 32, 8, 14336, 4), (128, 256, 4, 2, 512, 1))
PROMPT, NEW = S.pick((6000, 32), (300, 3))
N_INIT, N_LOCAL, BLOCK, TOPK, EXC, CACHED = S.pick((128, 2048, 128, 8, 512, 16), (8, 64, 16, 2, 32, 4))


def build(fattn):
    rope = RotaryEmbeddingESM(D // H, base=10000)
    fwd = inf_llm_forward(
        N_LOCAL, N_INIT, TOPK, BLOCK, CACHED, EXC, fattn, repr_topk=4, async_global_stream=False
    )
    return S.infllm_style_model(VOCAB, D, H, KV, FF, LAYERS, fwd, rope, dev, dt)


fast, ref = build(True), build(False)
prompt = torch.randint(0, VOCAB, (1, PROMPT), device=dev)
errs = []
with torch.inference_mode():
    lf, pf = fast(prompt)
    lr, pr = ref(prompt)
    errs.append(S.rel_err(lf, lr))
    for step in range(NEW):
        tok = lf[:, -1].argmax(-1, keepdim=True)
        lf, pf = fast(tok, pf)
        lr, pr = ref(tok, pr)
        errs.append(S.rel_err(lf, lr))
cm = pf[0]
errs_t = torch.tensor(errs)
print(
    f"prompt {PROMPT} + {NEW} tokens: {cm.num_global_block} memory blocks, cache loads {cm.load_count}; "
    f"median step rel err {errs_t.median().item():.1e}, worst {errs_t.max().item():.1e}"
)
torch.cuda.synchronize()
print("infllm_context_decode ok")
