"""Corpus driver (kx's code): the Sophia optimizer training a GPT (Liuhong99/Sophia, sophia.py: SophiaG
keeps an EMA of gradients and, through update_hessian, an EMA of squared gradients of a loss on
labels sampled from the model's own logits (the Gauss-Newton-Bartlett Hessian estimate); step
(bs=tokens per step) applies decoupled weight decay and the clipped update
sign(m) * min(|m| / (rho * bs * h + 1e-15), 1) per parameter in _single_tensor_sophiag, the step
count a tensor; model.py: the repository's GPT (GPTConfig, tied embeddings, causal attention
through an explicit masked_fill / softmax on the registered tril buffer, its configure_optimizers('sophiag', ...) splitting
decay / no-decay groups)) trained as train_sophiag.py trains it: the model torch.compile'd, loss
backward, clip_grad_norm_ 1.0 with a host read of the norm, optimizer.step(bs=...), zero_grad,
and every hess_interval (10) iterations a forward with targets=0 (full logits, no loss),
Categorical sampling of labels, cross-entropy backward and update_hessian. Data: kx's sparse
Markov-chain token stream. Checked: loss first vs last iterations, and the last iteration's compiled
logits against an eager forward of the same batch and weights."""

import _corpus22_support as S
import numpy as np
import torch
import torch.nn.functional as F
from model import GPT, GPTConfig  # noqa: E402

torch.manual_seed(1337)
dev = S.device()
LAYER, HEAD, EMBD, BLOCK, VOCAB, B, ITERS = S.pick((6, 6, 384, 256, 512, 32, 250), (2, 2, 32, 16, 48, 4, 12))
HESS_INTERVAL, GRAD_CLIP = 10, 1.0
data = S.markov_tokens(S.pick(2_000_000, 5000), VOCAB, seed=0)
rng = np.random.default_rng(0)

model = GPT(
    GPTConfig(
        block_size=BLOCK, vocab_size=VOCAB, n_layer=LAYER, n_head=HEAD, n_embd=EMBD, dropout=0.0, bias=True
    )
).to(dev)
optimizer = model.configure_optimizers(
    "sophiag", 1e-1, 6e-4, (0.965, 0.99), 0.05, "cuda" if dev == "cuda" else "cpu"
)
cmodel = torch.compile(model)

losses, clipped = [], 0
for it in range(ITERS):
    X, Y = S.lm_batch(data, B, BLOCK, rng, dev)
    logits, loss = cmodel(X, Y)
    if it == ITERS - 1:  # the compiled logits against an eager forward with the same weights
        with torch.no_grad():
            err = S.rel_err(logits, model.forward(X, Y)[0])
    loss.backward()
    total_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), GRAD_CLIP)
    if total_norm.item() > GRAD_CLIP:
        clipped += 1
    optimizer.step(bs=B * BLOCK)
    optimizer.zero_grad(set_to_none=True)
    losses.append(loss.item())
    if it % HESS_INTERVAL == HESS_INTERVAL - 1:
        X, _ = S.lm_batch(data, B, BLOCK, rng, dev)
        logits, _ = cmodel(X, 0)
        y_sample = torch.distributions.Categorical(logits=logits).sample()
        loss_h = F.cross_entropy(logits.view(-1, logits.size(-1)), y_sample.view(-1), ignore_index=-1)
        loss_h.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), GRAD_CLIP)
        optimizer.update_hessian()
        optimizer.zero_grad(set_to_none=True)

q = max(1, ITERS // 10)
S.sync()
print(
    f"SophiaG on compiled GPT {LAYER}x{EMBD} (vocab {VOCAB}, block {BLOCK}, batch {B}): loss first {np.mean(losses[:q]):.3f} -> "
    f"last {np.mean(losses[-q:]):.3f} over {ITERS} iterations ({ITERS // HESS_INTERVAL} Hessian updates, {clipped} clipped); "
    f"compiled vs eager logits rel err {err:.1e}"
)
