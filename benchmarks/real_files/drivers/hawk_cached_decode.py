"""Corpus driver (kx's code): fattorib/hawk-pytorch's cached generation path (hawk/hawk.py with
use_cache=True: the first call with empty cache/RNNCache objects is a prefill that runs the fused
Triton RG-LRU scan over the prompt (sequential_scan_fwd_kernel, sequence length a constexpr),
keeps the last three conv inputs and the last hidden state in bf16 cache tensors, and returns
logits; later one-token calls take the other branch of Hawk.forward: the conv window is the
cached frames concatenated with the new one (torch.roll to update), and the recurrence is one
torch step h = a h_prev + sqrt(1 - a^2) x gate from inference_prologue). The driver trains a
small Hawk for a few compiled steps on a Markov stream, then for prompts of 3 lengths prefill
(eager) and decode 64 tokens greedily with the single-token step torch.compile'd (dynamic=False;
the cache objects' tensors are inputs), and compares each step's logits with a full non-cached
forward over the same tokens (which reruns the Triton scan at each new length). einops is a
stand-in."""

import _corpus23_support as S

S.install_einops_standin()
import numpy as np  # noqa: E402
import torch  # noqa: E402
from hawk import HawkModel  # noqa: E402
from hawk.cache import RNNCache  # noqa: E402

torch.manual_seed(0)
dev = S.device()
VOCAB, HID, LAYERS, BLOCKS, TRAIN, NEW = S.pick((4096, 256, 4, 8, 40, 64), (64, 64, 2, 4, 2, 4))
PROMPTS = S.pick([16, 100, 333], [5, 9])
data = S.markov_tokens(S.pick(200_000, 4000), VOCAB, seed=1)
rng = np.random.default_rng(1)
cfg = S.hawk_config(VOCAB, HID, LAYERS, BLOCKS)
amp = dict(device_type="cuda", dtype=torch.bfloat16, enabled=dev == "cuda")

train_model = HawkModel(cfg, use_cache=False).to(dev)
ctrain = torch.compile(train_model)
opt = torch.optim.AdamW(train_model.parameters(), lr=2e-3)
for _ in range(TRAIN):
    ix = rng.integers(0, len(data) - 257, 8)
    x = torch.from_numpy(np.stack([data[i : i + 256] for i in ix])).to(dev)
    with torch.autocast(**amp):
        loss = ctrain(x, x)
    opt.zero_grad()
    loss.backward()
    opt.step()

model = HawkModel(cfg, use_cache=True).to(dev)
model.load_state_dict(train_model.state_dict())
model.eval()
step = torch.compile(model, dynamic=False)
full = HawkModel(cfg, use_cache=False).to(dev)
full.load_state_dict(train_model.state_dict())
full.eval()

errs, agree = [], []
with torch.no_grad(), torch.autocast(**amp):
    for p in PROMPTS:
        toks = torch.from_numpy(data[1000 : 1000 + p].copy()).to(dev)[None]
        caches = [RNNCache(HID, dev, 4) for _ in range(LAYERS)]
        logits, caches = model(toks, layer_past=caches)
        for _ in range(NEW):
            nxt = logits[:, -1:].argmax(-1)
            toks = torch.cat([toks, nxt], 1)
            logits, caches = step(nxt, layer_past=caches)
            ref = full(toks)[:, -1:]
            errs.append(S.rel_err(logits, ref))
            agree.append(float((logits.argmax(-1) == ref.argmax(-1)).float().mean()))
S.sync()
print(
    f"hawk-pytorch cached decode (compiled step) after {TRAIN} train steps, prompts {PROMPTS} x {NEW} tokens: "
    f"logits rel err vs full forward mean {np.mean(errs):.1e} max {max(errs):.1e}; argmax agreement {np.mean(agree):.3f}"
)
