"""Corpus driver (kx's code): training fattorib/hawk-pytorch's Hawk language model with
torch.compile, as its README shows (hawk/hawk.py: HawkModel = embedding, RNNLayers (RMSNorm,
Hawk recurrent block: input projection split into x / y, external.py's causal Conv1D (width 4,
window loop with padding), two BlockDiagonalLinear gates (einsum over blocks with einops
rearranges), the fused Triton RG-LRU scan DiagonalRecurrence.apply (a custom autograd Function
with constexpr sequence length), GeLU-gated epilogue; gated-GeLU MLP), final RMSNorm and a
zero-initialised LM head; with labels, the loss goes through fused_cross_entropy.py's
CrossEntropyLoopedFused (an autograd Function that computes the loss and both gradients in
2048-row chunks in its forward), itself wrapped in @torch.compile at import). The whole model is
torch.compile'd and trained under bf16 autocast with AdamW on a Markov token stream (8 layers,
d 512, 16 blocks, vocab 8192, batch 8 x 512, 60 steps). einops is a stand-in (the earlier
corpora's pattern-based rearrange). Checked: loss first vs last steps against the stream's
entropy floor, and the compiled model's loss against an eager call on one batch."""

import _corpus23_support as S

S.install_einops_standin()
import numpy as np  # noqa: E402
import torch  # noqa: E402
from hawk import HawkModel  # noqa: E402

torch.manual_seed(0)
dev = S.device()
VOCAB, HID, LAYERS, BLOCKS, B, T, STEPS = S.pick((8192, 512, 8, 16, 8, 512, 60), (64, 64, 2, 4, 2, 16, 3))
data = S.markov_tokens(S.pick(400_000, 4000), VOCAB, seed=0)
rng = np.random.default_rng(0)

model = HawkModel(S.hawk_config(VOCAB, HID, LAYERS, BLOCKS), use_cache=False).to(dev)
cmodel = torch.compile(model)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.1, betas=(0.9, 0.95))


def batch():
    ix = rng.integers(0, len(data) - T - 1, B)
    return torch.from_numpy(np.stack([data[i : i + T] for i in ix])).to(dev)


losses = []
for step in range(STEPS):
    x = batch()
    with torch.autocast(device_type="cuda", dtype=torch.bfloat16, enabled=dev == "cuda"):
        loss = cmodel(x, x)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    losses.append(loss.item())
x = batch()
with torch.no_grad(), torch.autocast(device_type="cuda", dtype=torch.bfloat16, enabled=dev == "cuda"):
    lc, le = cmodel(x, x).item(), model(x, x).item()
S.sync()
k = max(1, STEPS // 10)
print(
    f"hawk-pytorch HawkModel compiled ({LAYERS} layers, d {HID}, vocab {VOCAB}): loss first {np.mean(losses[:k]):.3f} -> "
    f"last {np.mean(losses[-k:]):.3f} (uniform {np.log(VOCAB):.2f}); compiled vs eager loss {lc:.4f} / {le:.4f}"
)
