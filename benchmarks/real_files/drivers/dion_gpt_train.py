"""Corpus driver (kx's code): microsoft/dion's GPT training with its orthonormalising optimizers on
one GPU, as train.py sets it up (models/gpt_model.py: GPT with rotary QK-norm attention, ReLU^2 MLP,
built on the meta device, `to_empty` on cuda, init_weights, then the model's own compile(): its
_forward and _forward_emb under torch.compile; bf16 autocast; param groups as train.py's
init_optimizer makes them: the block matrices with the main algorithm, the embedding and lm_head with
AdamW or Lion and lm_head_lr_scale). Two optimizers, 4 steps each on the same model (new random
token batches, loss.backward(), opt.step(), `loss.item()` each step): dion.Muon with
use_triton=True and polar express (polar_express.py's polar_express_triton: a
torch.compile(fullgraph=True) function launching newton_schulz_triton.py's autotuned symmetric
ns_line_1 / ns_line_2 Triton kernels, inside compiled code), then NorMuon with use_triton=True
and the classic 5-step Newton-Schulz (newton_schulz_triton: the same kernels called eagerly, their
tuned configs reused). Dion2 is left to dion_newton_schulz: its row / column selection brings new
matrix shapes, each a new autotuning session of 30 configs per kernel.
The optimizers' own torch.compile(fullgraph=True) helpers (muon_update_pre_orthogonalize /
post_orthogonalize, the foreach AdamW / Lion updates) run in every step. Model: 6 layers, d 768,
6 heads, vocabulary 50304, batch 8 x 1024 tokens. A torch.compile program with a backward pass."""

import _corpus8_support as S
import torch
from dion import Muon, NorMuon
from dion.opt_utils import lm_head_lr_scale
from models.gpt_model import GPT, GPTConfig

torch.manual_seed(0)
torch._dynamo.config.cache_size_limit = 100
dev = "cuda"
VOCAB, LAYERS, DIM, HEADS, SEQ, BATCH = S.pick((50304, 6, 768, 6, 1024, 8), (512, 2, 64, 2, 32, 2))
STEPS = S.pick(4, 2)

config = GPTConfig(sequence_len=SEQ, vocab_size=VOCAB, n_layer=LAYERS, n_head=HEADS, n_embd=DIM)
with torch.device("meta"):
    model = GPT(config)
model.to_empty(device=dev)
model.init_weights()
model.compile()


def param_groups(scalar_opt, lr):
    return [
        dict(params=list(model.transformer.h.parameters())),
        dict(
            params=list(model.transformer.wte.parameters()),
            algorithm=scalar_opt,
            lr=lr,
            betas=(0.95, 0.98),
            weight_decay=0,
        ),
        dict(
            params=list(model.lm_head.parameters()),
            algorithm=scalar_opt,
            lr=lr * lm_head_lr_scale(scalar_opt, DIM),
            betas=(0.95, 0.98),
            weight_decay=0,
        ),
    ]


optimizers = {
    "muon (polar express, triton)": lambda: Muon(
        param_groups("adamw", 0.02),
        distributed_mesh=None,
        lr=0.02,
        mu=0.95,
        weight_decay=0.01,
        nesterov=True,
        adjust_lr="spectral_norm",
        use_triton=True,
        use_polar_express=True,
    ),
    "normuon (newton-schulz, triton)": lambda: NorMuon(
        param_groups("lion", 0.01),
        distributed_mesh=None,
        lr=0.01,
        mu=0.95,
        muon_beta2=0.95,
        weight_decay=0.01,
        nesterov=True,
        adjust_lr="spectral_norm",
        use_triton=True,
        use_polar_express=False,
    ),
}
autocast = torch.amp.autocast(device_type="cuda", dtype=torch.bfloat16)
for name, make in optimizers.items():
    opt = make()
    for step in range(STEPS):
        idx = torch.randint(VOCAB, (BATCH, SEQ + 1), device=dev)
        with autocast:
            loss = model(idx[:, :-1].contiguous(), idx[:, 1:].contiguous())
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        print(f"{name} step {step} loss {loss.item():.4f}")
with torch.no_grad(), autocast:
    logits = model(torch.randint(VOCAB, (BATCH, SEQ), device=dev), return_logits=True)
torch.cuda.synchronize()
print("dion gpt train ok", tuple(logits.shape))
