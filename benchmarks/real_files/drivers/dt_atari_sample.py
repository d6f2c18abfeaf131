"""Corpus driver (kx's code): the Decision Transformer for Atari (kzl/decision-transformer,
atari/mingpt/model_atari.py's GPT) evaluated with the repo's own sampler (atari/mingpt/
utils.py: sample(), a @torch.no_grad loop that crops states / actions / returns-to-go to the
last block_size // 3 steps, runs the model, takes the last action logits, optionally top-k
filters them (clone + masked fill against topk) and samples with torch.multinomial or takes the
topk-1 action) inside trainer_atari.py's get_returns episode loop: the first step with
actions=None (the 2-token path of the model), then a growing context (1, 2, ... up to the
crop, so every step changes the sequence length: dynamic shapes) until the episode's done
flag, host reads of the sampled action each step (.cpu().numpy()). The model is wrapped in
torch.compile and driven by sample(); ToyAtari (random frames with a moving square) stands in
for the ALE. Checked: greedy episodes (sample=False) with the compiled and the eager model
pick the same actions (all but near-ties), and the compiled vs eager action logits on the final
context are close; then sampled episodes (sample=True, top_k) run to their done flags."""

import _corpus20_support as S

S.install_dt_atari_standins()
import torch  # noqa: E402
from mingpt.model_atari import GPT, GPTConfig  # noqa: E402
from mingpt.utils import sample  # noqa: E402

torch.manual_seed(0)
dev = S.device()
CTX, LAYERS, HEADS, EMB, NACT, MAXT, EP_LEN, EPISODES = S.pick((30, 6, 8, 128, 18, 1000, 60, 3), (4, 2, 2, 32, 4, 20, 7, 2))

mconf = GPTConfig(NACT, CTX * 3, n_layer=LAYERS, n_head=HEADS, n_embd=EMB, model_type="reward_conditioned", max_timestep=MAXT)
model = GPT(mconf).to(dev)
with torch.no_grad():  # spread the zero-initialised position embeddings so that steps differ
    model.pos_emb.normal_(0, 0.02)
    model.global_pos_emb.normal_(0, 0.02)
compiled = torch.compile(model)


def episode(m, seed, ret, greedy, top_k=None):
    """trainer_atari.get_returns' loop for one episode (kx's transcription, model passed in)."""
    env = S.ToyAtari(NACT, EP_LEN, seed=seed)
    state = env.reset().to(dev).unsqueeze(0).unsqueeze(0).reshape(1, 1, -1)
    rtgs = [ret]
    sampled_action = sample(
        m, state, 1, temperature=1.0, sample=not greedy, top_k=top_k, actions=None,
        rtgs=torch.tensor(rtgs, dtype=torch.long).to(dev).unsqueeze(0).unsqueeze(-1),
        timesteps=torch.zeros((1, 1, 1), dtype=torch.int64).to(dev),
    )
    j, all_states, actions, reward_sum = 0, state, [], 0.0
    while True:
        action = sampled_action.cpu().numpy()[0, -1]
        actions += [sampled_action]
        state, reward, done = env.step(action)
        reward_sum += reward
        j += 1
        if done:
            break
        state = state.to(dev).reshape(1, 1, -1)
        all_states = torch.cat([all_states, state], dim=1)
        rtgs += [rtgs[-1] - reward]
        sampled_action = sample(
            m, all_states, 1, temperature=1.0, sample=not greedy, top_k=top_k,
            actions=torch.tensor(actions, dtype=torch.long).to(dev).unsqueeze(1).unsqueeze(0),
            rtgs=torch.tensor(rtgs, dtype=torch.long).to(dev).unsqueeze(0).unsqueeze(-1),
            timesteps=(min(j, MAXT) * torch.ones((1, 1, 1), dtype=torch.int64).to(dev)),
        )
    ctx = (all_states[:, -CTX:], torch.tensor(actions, dtype=torch.long, device=dev)[-CTX:].view(1, -1, 1), torch.tensor(rtgs, device=dev)[-CTX:].view(1, -1, 1))
    return [int(a) for a in torch.cat(actions).flatten().tolist()], reward_sum, ctx, j


agree, total, steps = 0, 0, 0
for ep in range(EPISODES):
    a_c, r_c, ctx, n_c = episode(compiled, 10 + ep, 20, greedy=True)
    a_e, r_e, _, _ = episode(model, 10 + ep, 20, greedy=True)
    n = min(len(a_c), len(a_e))
    agree += sum(x == y for x, y in zip(a_c[:n], a_e[:n]))
    total += n
    steps += n_c
states, acts, rtg = ctx
t_last = torch.full((1, 1, 1), min(n_c, MAXT), dtype=torch.int64, device=dev)
with torch.no_grad():
    lc, _ = compiled(states, acts, targets=None, rtgs=rtg, timesteps=t_last)
    le, _ = model(states, acts, targets=None, rtgs=rtg, timesteps=t_last)
e_logits = S.rel_err(lc, le)
sampled = [episode(compiled, 100 + ep, 20, greedy=False, top_k=max(2, NACT // 2)) for ep in range(EPISODES)]
print(
    f"Decision Transformer sampler, {LAYERS} layers x {EMB}, context {CTX}: {EPISODES} greedy episodes ({steps} compiled steps), "
    f"compiled vs eager actions agree {agree}/{total}, last-context logits rel err {e_logits:.1e}; {len(sampled)} sampled episodes, "
    f"returns {[s[1] for s in sampled]}"
)
assert agree >= 0.9 * total and e_logits < 5e-2, (agree, total, e_logits)
assert all(s[3] >= EP_LEN // 2 for s in sampled)
S.sync()
print("dt_atari_sample ok")
