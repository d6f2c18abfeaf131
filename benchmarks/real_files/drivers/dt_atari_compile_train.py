"""Corpus driver (kx's code): the Decision Transformer for Atari (kzl/decision-transformer,
atari/mingpt/model_atari.py: a minGPT whose tokens interleave return-to-go, state and action
embeddings (a 3-layer conv encoder over 4 stacked 84x84 frames, Linear + Tanh return embedding,
Embedding + Tanh action embedding, written into a zero tensor with strided slice assignment),
global timestep embeddings gathered with repeat_interleave + torch.gather, an explicit causal
attention with a registered tril mask, and cross entropy on the state tokens' action logits)
trained as trainer_atari.py's run_epoch trains it: model(x, y, y, r, t), loss.mean() and
.item() each step, zero_grad, backward, clip_grad_norm_, AdamW from the file's
configure_optimizers (decay / no-decay groups), and the linear-warmup + cosine learning-rate
schedule driven by tokens counted from the batch ((y >= 0).sum() read on the host). The model is
wrapped in torch.compile; a deep-copied eager twin trains on the same batches (dropout 0).
Data: ToyAtari trajectories (random frames with a moving square, returns-to-go from the
rewards, actions from a noisy quadrant policy). Checked: per-step losses and final parameters (but the attention key biases, whose exact
gradient is zero) close to eager, and (real sizes) the loss
decreasing (the behaviour policy mostly picks the square's quadrant)."""

import copy
import math

import _corpus20_support as S

S.install_dt_atari_standins()
import torch  # noqa: E402
from mingpt.model_atari import GPT, GPTConfig  # noqa: E402
from mingpt.trainer_atari import TrainerConfig  # noqa: E402

torch.manual_seed(0)
dev = S.device()
B, CTX, LAYERS, HEADS, EMB, STEPS, NACT, MAXT = S.pick((32, 30, 6, 8, 128, 12, 18, 1000), (2, 4, 2, 2, 32, 3, 4, 20))

mconf = GPTConfig(
    NACT, CTX * 3, n_layer=LAYERS, n_head=HEADS, n_embd=EMB, model_type="reward_conditioned", max_timestep=MAXT,
    embd_pdrop=0.0, resid_pdrop=0.0, attn_pdrop=0.0,
)
model = GPT(mconf).to(dev)
twin = copy.deepcopy(model)
tconf = TrainerConfig(
    max_epochs=1, batch_size=B, learning_rate=6e-4, lr_decay=True, warmup_tokens=B * CTX * 2,
    final_tokens=2 * STEPS * B * CTX, num_workers=0, seed=0, model_type="reward_conditioned", game="Toy", max_timestep=MAXT,
)


def batches():
    env = S.ToyAtari(NACT, CTX + 10, seed=1)
    g = torch.Generator().manual_seed(2)
    out = []
    for _ in range(STEPS):
        xs, ys, rs, ts = [], [], [], []
        for _ in range(B):
            s, frames, acts, rews = env.reset(), [], [], []
            for _ in range(CTX):
                y0, x0 = env.pos.tolist()
                a = 2 * (y0 >= 35) + (x0 >= 35)  # a behaviour policy that mostly follows the square
                if float(torch.rand(1, generator=g)) < 0.3:
                    a = int(torch.randint(0, NACT, (1,), generator=g))
                frames.append(s.reshape(-1))
                acts.append(a)
                s, r, _ = env.step(a)
                rews.append(r)
            rtg = torch.tensor(rews).flip(0).cumsum(0).flip(0)
            xs.append(torch.stack(frames))
            ys.append(torch.tensor(acts))
            rs.append(rtg)
            ts.append(int(torch.randint(0, MAXT - CTX, (1,), generator=g)))
        out.append(
            (torch.stack(xs), torch.stack(ys)[..., None], torch.stack(rs)[..., None], torch.tensor(ts)[:, None, None])
        )
    return out


data = batches()
runs = {}
for name, m in (("compiled", torch.compile(model)), ("eager", twin)):
    base = model if name == "compiled" else twin
    optimizer = base.configure_optimizers(tconf)
    tokens, losses = 0, []
    for x, y, r, t in data:
        x, y, r, t = x.to(dev), y.to(dev), r.to(dev), t.to(dev)
        logits, loss = m(x, y, y, r, t)
        loss = loss.mean()
        losses.append(loss.item())
        m.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(m.parameters(), tconf.grad_norm_clip)
        optimizer.step()
        tokens += (y >= 0).sum()
        if tokens < tconf.warmup_tokens:
            lr_mult = float(tokens) / float(max(1, tconf.warmup_tokens))
        else:
            progress = float(tokens - tconf.warmup_tokens) / float(max(1, tconf.final_tokens - tconf.warmup_tokens))
            lr_mult = max(0.1, 0.5 * (1.0 + math.cos(math.pi * progress)))
        for pg in optimizer.param_groups:
            pg["lr"] = tconf.learning_rate * lr_mult
    runs[name] = losses

e_loss = max(abs(a - b) / abs(b) for a, b in zip(runs["compiled"], runs["eager"]))
# attention key biases left out: their exact gradient is 0 (a per-row constant under softmax), so
# Adam turns rounding noise into full-size steps that differ between any two implementations
e_par = max(
    S.rel_err(p, q) for (n, p), q in zip(model.named_parameters(), twin.parameters()) if not n.endswith("attn.key.bias")
)
print(
    f"Decision Transformer (Atari) {LAYERS} layers x {EMB}, context {CTX} (x3 tokens), batch {B}: {STEPS} compiled AdamW steps, "
    f"loss {runs['compiled'][0]:.4f} -> {runs['compiled'][-1]:.4f}; compiled vs eager: losses {e_loss:.1e}, params {e_par:.1e}"
)
assert e_loss < 5e-2 and e_par < 5e-2, (e_loss, e_par)
assert S.small() or runs["compiled"][-1] < runs["compiled"][0], runs["compiled"]
S.sync()
print("dt_atari_compile_train ok")
