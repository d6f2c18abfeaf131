"""Corpus driver (kx's code): meta-recsys/generative-recommenders' STU (HSTU) layers on the Triton
path (generative_recommenders/modules/stu.py: STULayer / STUStack with HammerKernel.TRITON, over
ops/hstu_compute.py: hstu_preprocess_and_attention (triton_hstu_preprocess_and_attention.py:
fused layer norm + addmm computing u / v / q / k, then HSTU attention), hstu_compute_output
(triton_hstu_linear.py: layer or group norm x u with dropout, concat and the output addmm, with
recomputation in backward), ops/jagged_tensors.py's split / concat of jagged tensors for the KV
cache (triton_jagged.py)), trained and then served as its tests (modules/tests/stu_test.py:
test_triton, test_cached_forward) drive it. A sequential recommender made here: an item embedding
table, 4 STU layers (d 256, 4 heads, attention and hidden dims 64, target-aware, a 4-token
contextual prefix, one layer with group norm, output dropout 0.1), user histories of random
lengths (up to 512 items) followed by 1 .. 16 target items; offsets from
torch.ops.fbgemm.asynchronous_complete_cumsum (a stand-in from the support module),
`int(x_offsets[-1].item())` and `int(x_lengths.max().item())` from the data each step. 6 Adam
steps with a binary cross-entropy loss on the target rows (split off with split_2D_jagged, Triton),
new batch shapes every step. Then inference (a second stack with is_inference=True loading the
trained weights): each user's history is primed once into the per-layer KV caches
(max_kv_caching_len / kv_caching_lengths), then 4 rounds of 8 candidate items per user are scored
by STUStack.cached_forward (delta attention over the cache); round 0 is checked against a full
forward over history + candidates. Runs in fp32 with TF32 matmuls as the tests do."""

import _corpus8_support as S
import torch
import torch.nn.functional as F

S.install_fbgemm_jagged_standins()
# ops/hstu_attention.py imports a Meta-internal Blackwell (TLX) kernel unconditionally: a stand-in
S.stub_module(
    "hammer.v2.ops.triton.template.tlx_bw_hstu_attention",
    tlx_bw_hstu_mha_wrapper=S.unavailable("hammer's tlx_bw_hstu_mha_wrapper"),
)
from generative_recommenders.common import HammerKernel, set_dev_mode  # noqa: E402
from generative_recommenders.modules.stu import STULayer, STULayerConfig, STUStack  # noqa: E402
from generative_recommenders.ops.jagged_tensors import split_2D_jagged  # noqa: E402

torch.manual_seed(0)
set_dev_mode(True)
torch.backends.cudnn.allow_tf32 = True
torch.backends.cuda.matmul.allow_tf32 = True
dev = "cuda"
cumsum = torch.ops.fbgemm.asynchronous_complete_cumsum

NUM_ITEMS, D, HEADS, ATTN, HIDDEN, LAYERS = S.pick((100_000, 256, 4, 64, 64, 4), (500, 32, 2, 16, 16, 2))
BATCH, MAX_UIH, MAX_TARGETS, CONTEXT = S.pick((64, 512, 16, 4), (3, 20, 4, 2))
STEPS, ROUNDS, DELTA = S.pick((6, 4, 8), (2, 2, 3))


def make_stack(is_inference, dropout):
    layers = [
        STULayer(
            config=STULayerConfig(
                embedding_dim=D,
                num_heads=HEADS,
                hidden_dim=HIDDEN,
                attention_dim=ATTN,
                output_dropout_ratio=dropout,
                causal=True,
                target_aware=True,
                max_attn_len=None,
                attn_alpha=None,
                use_group_norm=(i == 1),
                recompute_normed_x=True,
                recompute_uvqk=True,
                recompute_y=True,
                sort_by_length=True,
                contextual_seq_len=CONTEXT,
            ),
            is_inference=is_inference,
        )
        for i in range(LAYERS)
    ]
    stack = STUStack(stu_list=layers, is_inference=is_inference).to(dev)
    stack.recursive_setattr("_hammer_kernel", HammerKernel.TRITON)
    return stack


item_emb = torch.nn.Embedding(NUM_ITEMS, D).to(dev)
torch.nn.init.normal_(item_emb.weight, std=0.02)
stu = make_stack(is_inference=False, dropout=0.1)
opt = torch.optim.Adam(list(stu.parameters()) + list(item_emb.parameters()), lr=1e-3)

for step in range(STEPS):
    uih_lengths = torch.randint(1, MAX_UIH + 1, (BATCH,), device=dev) + CONTEXT
    num_targets = torch.randint(1, MAX_TARGETS + 1, (BATCH,), device=dev)
    x_lengths = uih_lengths + num_targets
    x_offsets = cumsum(x_lengths)
    total = int(x_offsets[-1].item())
    max_seq_len = int(x_lengths.max().item())
    ids = torch.randint(NUM_ITEMS, (total,), device=dev)
    x = item_emb(ids)
    y = stu(x=x, x_lengths=x_lengths, x_offsets=x_offsets, max_seq_len=max_seq_len, num_targets=num_targets)
    # the target rows (the last num_targets of each sequence) score their own items
    _, target_y = split_2D_jagged(
        max_seq_len=max_seq_len,
        values=y,
        max_len_left=None,
        max_len_right=None,
        offsets_left=cumsum(uih_lengths),
        offsets_right=cumsum(num_targets),
        kernel=HammerKernel.TRITON,
    )
    _, target_ids = split_2D_jagged(
        max_seq_len=max_seq_len,
        values=ids[:, None].float(),
        max_len_left=None,
        max_len_right=None,
        offsets_left=cumsum(uih_lengths),
        offsets_right=cumsum(num_targets),
        kernel=HammerKernel.TRITON,
    )
    logits = (F.normalize(target_y, dim=-1) * item_emb(target_ids[:, 0].long())).sum(-1) * 8.0
    labels = (torch.rand_like(logits) < 0.3).float()
    loss = F.binary_cross_entropy_with_logits(logits, labels)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    print(f"step {step} tokens {total} max_seq_len {max_seq_len} loss {loss.item():.4f}")

# serving: prime the KV caches with each user's history once, then score rounds of candidates
server = make_stack(is_inference=True, dropout=0.0)
server.load_state_dict(stu.state_dict())
server.eval()
with torch.no_grad():
    uih_lengths = torch.randint(1, MAX_UIH + 1, (BATCH,), device=dev) + CONTEXT
    num_targets = torch.full((BATCH,), DELTA, device=dev, dtype=uih_lengths.dtype)
    x_lengths = uih_lengths + DELTA
    max_seq_len = MAX_UIH + CONTEXT + DELTA
    prime_offsets = cumsum(uih_lengths)
    history = item_emb(torch.randint(NUM_ITEMS, (int(prime_offsets[-1].item()),), device=dev))
    server(
        x=history,
        x_lengths=uih_lengths,
        x_offsets=prime_offsets,
        max_seq_len=max_seq_len,
        num_targets=num_targets - DELTA,
        max_kv_caching_len=max_seq_len - DELTA,
        kv_caching_lengths=uih_lengths,
    )
    for rnd in range(ROUNDS):
        candidates = item_emb(torch.randint(NUM_ITEMS, (BATCH * DELTA,), device=dev))
        delta_y = server.cached_forward(delta_x=candidates, num_targets=num_targets)
        scores = (F.normalize(delta_y, dim=-1) * candidates).sum(-1).view(BATCH, DELTA)
        top = scores.argmax(-1).tolist()
        msg = f"round {rnd} delta {tuple(delta_y.shape)} best {top[:4]}"
        if rnd == 0:
            # the reference: one full forward over history + candidates, its last DELTA rows per user
            dense_hist = history.split(uih_lengths.tolist())
            full_x = torch.cat(
                [torch.cat([h, c]) for h, c in zip(dense_hist, candidates.view(BATCH, DELTA, D), strict=True)]
            )
            x_offsets = cumsum(x_lengths)
            full_y = server(
                x=full_x,
                x_lengths=x_lengths,
                x_offsets=x_offsets,
                max_seq_len=max_seq_len,
                num_targets=num_targets,
            )
            _, want = split_2D_jagged(
                max_seq_len=max_seq_len,
                values=full_y,
                max_len_left=None,
                max_len_right=DELTA,
                offsets_left=prime_offsets,
                offsets_right=None,
                kernel=HammerKernel.TRITON,
            )
            msg += f" max err vs full forward {(want - delta_y).abs().max().item():.2e}"
        print(msg)
torch.cuda.synchronize()
print("generative-recommenders stu train + cached serving ok")
