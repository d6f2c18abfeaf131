"""Corpus driver (kx's code): Lightning-AI/lit-llama's generate() (generate.py: a token loop on
the host over a KV-cached LLaMA, input_pos advanced one token a step, top-k filtering,
multinomial sampling, early stop on eos) on a GPTQ int4 model built as generate.py builds it
under lit_llama.utils.quantization("gptq.int4") (every nn.Linear, lm_head included, a
ColBlockQuantizedLinear whose forward runs the autotuned Triton linear_kernel_4bit_weight of
lit_llama/quantization.py): Llama-7B width (d 4096, 32 heads, vocab 32000) with 4 layers and
random codes (kx's stand-in for a converted checkpoint), fp16, a 256-token prompt, 48 new tokens
with top_k 1 (greedy), then the same with top_k 200 / temperature 0.8. The greedy tokens and the
prompt's logits are compared with the same model on dequantised fp16 nn.Linear weights."""

import _corpus14_support as S
import torch

S.install_litllama_standins()
import lit_llama.model as llama  # noqa: E402
from generate import generate  # noqa: E402
from lit_llama import LLaMA, LLaMAConfig  # noqa: E402
from lit_llama.quantization import ColBlockQuantizedLinear  # noqa: E402
from lit_llama.utils import quantization  # noqa: E402

torch.manual_seed(0)
dev, dt = "cuda", torch.float16
cfg = S.pick(
    dict(block_size=512, vocab_size=32000, n_layer=4, n_head=32, n_embd=4096),
    dict(block_size=64, vocab_size=256, n_layer=2, n_head=2, n_embd=64),
)
PROMPT, NEW = S.pick((256, 48), (8, 4))

with quantization("gptq.int4"):
    model = LLaMA(LLaMAConfig(**cfg))
model = model.to(dev)
for i, m in enumerate(m for m in model.modules() if isinstance(m, ColBlockQuantizedLinear)):
    S.fill_col_block_quantized(m, seed=i)
with torch.no_grad():
    for p in model.parameters():  # embedding and RMSNorm weights
        p.normal_(0, 0.02) if p.dim() > 1 else p.fill_(1.0)
model = model.to(dt).eval()

ref = LLaMA(LLaMAConfig(**cfg)).to(dev)
qmods = dict(model.named_modules())
with torch.no_grad():
    for name, m in ref.named_modules():
        if isinstance(m, torch.nn.Linear):
            m.weight.copy_(qmods[name].get_weight(torch.float32))
    ref.transformer.wte.weight.copy_(model.transformer.wte.weight)
ref = ref.to(dt).eval()
assert llama.LLaMA is LLaMA

prompt = torch.randint(0, cfg["vocab_size"], (PROMPT,), device=dev)
with torch.no_grad():
    lq, lr = model(prompt[None]), ref(prompt[None])
print(f"prompt logits rel err (int4 Triton vs dequantised fp16) {S.rel_err(lq, lr):.1e}")

torch.manual_seed(1)
out = generate(model, prompt, NEW, max_seq_length=PROMPT + NEW, temperature=1.0, top_k=1)
model.reset_cache()
torch.manual_seed(1)
want = generate(ref, prompt, NEW, max_seq_length=PROMPT + NEW, temperature=1.0, top_k=1)
agree = (out[PROMPT:] == want[PROMPT:]).float().mean().item()
print(f"greedy: {NEW} tokens, agreement with the fp16 model {agree:.2f}")

torch.manual_seed(2)
sampled = generate(model, prompt, NEW, max_seq_length=PROMPT + NEW, temperature=0.8, top_k=200)
print(f"sampled: {sampled.shape[0] - PROMPT} new tokens, first {sampled[PROMPT : PROMPT + 8].tolist()}")
torch.cuda.synchronize()
print("litllama_gptq_decode ok")
