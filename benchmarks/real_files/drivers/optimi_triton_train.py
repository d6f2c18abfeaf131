"""Corpus driver (kx's code): warner-benjamin/optimi's Triton optimizer steps (optimi/adan.py
_adan_kernel and optimi/adamw.py's kernel: one fused elementwise kernel per parameter, launched
inside torch.cuda.device_of(param) with a block size picked from numel, constexpr switches for
weight decay / Kahan summation / parameter update, a kahan_ptr that is None for float32
parameters, state stored back in the parameter's dtype) training a bfloat16 MLP-mixer-style
stack (LayerNorm, Linear, GELU; an nn.Embedding kept in float32 by optimi's to_low_precision) the
way optimi's docs use it: Adan with Kahan summation for a few steps, then AdamW with gradient
release (prepare_for_gradient_release: the step runs from post-accumulate-grad hooks, one
_single_param_triton_adamw launch per parameter during backward), both with Kahan summation.
Each run is checked against float32 master weights stepped with the same gradients by the same
optimizer class with triton=False (optimi's PyTorch path)."""

import _corpus18_support as S
import torch
import torch.nn as nn
import torch.nn.functional as F

_saved = S.install_packaging_standin()
import optimi  # noqa: E402

S.restore_packaging(_saved)

torch.manual_seed(0)
dev = "cuda"
VOCAB, D, LAYERS, B, T, STEPS = S.pick((32000, 1024, 4, 8, 512, 4), (64, 32, 2, 2, 8, 3))


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, D)
        self.blocks = nn.ModuleList(
            nn.Sequential(nn.LayerNorm(D), nn.Linear(D, 4 * D), nn.GELU(), nn.Linear(4 * D, D))
            for _ in range(LAYERS)
        )
        self.head = nn.Linear(D, VOCAB, bias=False)

    def forward(self, idx):
        x = self.emb(idx).to(torch.bfloat16)
        for blk in self.blocks:
            x = x + blk(x)
        return self.head(x).float()


def make_model():
    return optimi.to_low_precision(Net(), dtype=torch.bfloat16, device=dev)


def master_copy(model):
    return [p.detach().float().clone() for p in model.parameters()]


def batches(seed):
    g = torch.Generator().manual_seed(seed)
    for _ in range(STEPS):
        yield torch.randint(0, VOCAB, (B, T + 1), generator=g).to(dev)


def loss_of(model, tok):
    return F.cross_entropy(model(tok[:, :-1]).reshape(-1, VOCAB), tok[:, 1:].reshape(-1))


def worst_err(model, master):
    return max(S.rel_err(p, q) for p, q in zip(model.parameters(), master))


# Adan with Kahan summation (bf16 params carry a bf16 compensation buffer, the fp32 embedding
# none), checked against float32 master weights stepped by optimi's PyTorch path with the same
# gradients: Kahan-summed bf16 weights should stay within bf16 rounding of them.
model = make_model()
master = master_copy(model)
opt = optimi.Adan(model.parameters(), lr=3e-3, weight_decay=2e-2, kahan_sum=True, triton=True)
opt_ref = optimi.Adan(master, lr=3e-3, weight_decay=2e-2, triton=False)
for step, tok in enumerate(batches(1)):
    loss = loss_of(model, tok)
    loss.backward()
    for p, q in zip(model.parameters(), master):
        q.grad = p.grad.float()
    opt.step()
    opt.zero_grad()
    opt_ref.step()
    err = worst_err(model, master)
    print(f"Adan step {step}: loss {loss.item():.4f}, worst param rel err vs fp32 master {err:.1e}")
    assert err < 2e-2, err

# AdamW with gradient release: the optimizer steps inside backward, one launch per parameter
# (a hook registered first copies each gradient to the master weights before the step uses it)
model = make_model()
master = master_copy(model)
for p, q in zip(model.parameters(), master):
    p.register_post_accumulate_grad_hook(lambda p, q=q: setattr(q, "grad", p.grad.float()))
opt = optimi.AdamW(
    model.parameters(), lr=1e-3, weight_decay=1e-2, kahan_sum=True, triton=True, gradient_release=True
)
opt_ref = optimi.AdamW(master, lr=1e-3, weight_decay=1e-2, triton=False)
optimi.prepare_for_gradient_release(model, opt, ignore_existing_hooks=True)
for step, tok in enumerate(batches(2)):
    loss = loss_of(model, tok)
    loss.backward()
    opt.step()  # a no-op for released parameters, as optimi's docs call it
    opt.zero_grad()
    opt_ref.step()
    err = worst_err(model, master)
    print(
        f"AdamW (gradient release) step {step}: loss {loss.item():.4f}, worst param rel err vs fp32 master {err:.1e}"
    )
    assert err < 2e-2, err
optimi.remove_gradient_release(model)
torch.cuda.synchronize()
print("optimi_triton_train ok")
