"""Corpus driver (kx's code): gemma_pytorch GemmaForCausalLM.generate() (prefill + KV-cache
decode loop with top-p / top-k sampling) with the model compiled in place.

What scripts/run.py does (build the model under the config's default dtype, load weights,
.to(device).eval(), model.generate(prompt, device, output_len=...)) for a tiny Gemma 3
text config with random bf16 weights made on the GPU: 6 layers in the 1B model's pattern
(5 local sliding-window + 1 global), hidden 512, 4 query heads / 1 KV head of dim 128, QK norm,
pre/post feed-forward norms, dual RoPE tables (10k local, 1M global), the 262,144-token
vocabulary, sliding window 32. gemma_pytorch has no torch.compile call of its own; a user
compiles the module in place with `model.compile()` (torch.compile(model) would return a
wrapper whose .generate runs the plain module's self(...) eagerly), so every forward that
generate() makes goes through torch.compile with default settings. Two generate() calls on
batches of two prompts: each prefills min_prompt_len tokens, then decodes one token a step
(index_copy_ into the per-layer KV caches, a row of the causal / local masks picked with
index_select, repeat_interleave for GQA, the Sampler's softmax / sort / cumsum / multinomial);
the second call's prompt and cache lengths differ (recompiles with dynamic shapes).
gemma/tokenizer.py needs sentencepiece and the tokenizer.model file (absent from the snapshot,
and sentencepiece is not among the H200's guaranteed packages): a byte-level stand-in with the
same interface replaces that module (host-side only: token ids in, strings out).
"""

import contextlib

import gemma  # noqa: F401  (the package: an empty __init__)
import torch
from _corpus_support import stub_module


class ByteTokenizer:
    """gemma.tokenizer.Tokenizer's interface over UTF-8 bytes (pad 0, eos 1, bos 2)."""

    def __init__(self, model_path=None):
        self.n_words, self.pad_id, self.eos_id, self.bos_id = 259, 0, 1, 2

    def encode(self, s, bos=True, eos=False):
        t = [b + 3 for b in s.encode("utf-8")]
        return ([self.bos_id] if bos else []) + t + ([self.eos_id] if eos else [])

    def decode(self, t):  # ids past the byte range (random weights pick them) read as "?"
        return "".join(chr(i - 3) if 3 <= i < 131 else "?" for i in t)


stub_module("gemma.tokenizer", Tokenizer=ByteTokenizer)

from gemma import config as gemma_config  # noqa: E402
from gemma import model as gemma_model  # noqa: E402

AT = gemma_config.AttentionType


@contextlib.contextmanager
def _set_default_tensor_type(dtype):  # as scripts/run.py
    torch.set_default_dtype(dtype)
    yield
    torch.set_default_dtype(torch.float)


seed = 12345
torch.manual_seed(seed)
device = torch.device("cuda")
model_config = gemma_config.GemmaConfig(
    architecture=gemma_config.Architecture.GEMMA_3,
    num_hidden_layers=6,
    num_attention_heads=4,
    num_key_value_heads=1,
    hidden_size=512,
    intermediate_size=2048,
    use_pre_ffw_norm=True,
    use_post_ffw_norm=True,
    head_dim=128,
    attn_types=(AT.LOCAL_SLIDING,) * 5 + (AT.GLOBAL,),
    sliding_window_size=32,
    rope_wave_length={AT.LOCAL_SLIDING: 10_000, AT.GLOBAL: 1_000_000},
    vocab_size=262_144,
    max_position_embeddings=2048,
    tokenizer=None,
    use_qk_norm=True,
    vision_config=None,
    dtype="bfloat16",
)

with _set_default_tensor_type(model_config.get_dtype()), torch.device(device):
    model = gemma_model.GemmaForCausalLM(model_config)
    with torch.no_grad():  # random weights in place of model.load_weights(ckpt)
        for p in model.parameters():
            if p.dim() >= 2:
                p.normal_(0.0, 0.02)
            else:
                p.normal_(0.0, 0.1)
    model = model.to(device).eval()
model.compile()

batches = [
    ["The name of the capital of Italy is", "What are large language models?"],
    ["Write a poem about GPUs and compilers, please:", "Tell me a joke."],
]
for i, prompts in enumerate(batches):
    results = model.generate(prompts, device, output_len=24)
    for p, r in zip(prompts, results):
        print(f"generate {i}: {p!r} -> {len(r)} chars")
torch.cuda.synchronize()
print("gemma generate ok")
