"""Corpus driver (kx's code): facebookresearch/dinov2's self-supervised objective, one
student / teacher training step after another as dinov2/train/ssl_meta_arch.py puts it together
(kx's own loop, no FSDP): a ViT-S/14 student and EMA teacher (dinov2/models/vision_transformer.py
with 4 registers, LayerScale, drop path 0.1 on the student; the student's forward_features over
2 global crops with iBOT masks (mask_token put in by prepare_tokens_with_masks), then over 4
local crops: forward_features_list, which does both at once, needs xFormers' nested tensors), one shared DINOHead (dinov2/layers/dino_head.py: 3-layer MLP, L2 norm, weight-normed
prototype layer, 65,536 prototypes) on class tokens and masked patch tokens, DINOLoss
(dino_clstoken_loss.py) against the teacher's centred / sharpened softmax, iBOTPatchLoss
.forward_masked (ibot_patch_loss.py) on the masked patches, KoLeoLoss (koleo_loss.py) on the
global class tokens, centre updates; the student backbone and head run under torch.compile:
batch 16, global crops 224, local crops 98, bf16 autocast, AdamW, 3 steps with loss.backward()
and the teacher's EMA update; then the compiled student vs eager on one batch in eval mode."""

import os

# the GPU machine has no xFormers: take dinov2's PyTorch paths everywhere
os.environ["XFORMERS_DISABLED"] = "1"

import copy  # noqa: E402

import _corpus14_support as S  # noqa: E402
import torch  # noqa: E402
from dinov2.layers import DINOHead  # noqa: E402
from dinov2.loss import DINOLoss, KoLeoLoss, iBOTPatchLoss  # noqa: E402
from dinov2.models.vision_transformer import vit_small  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
B, G, L, NPROTO, STEPS = S.pick((16, 224, 98, 65536, 3), (2, 28, 14, 64, 2))
NG, NL = 2, 4
NP = (G // 14) ** 2

student = vit_small(
    patch_size=14, img_size=G, init_values=1e-5, block_chunks=0, num_register_tokens=4, drop_path_rate=0.1
)
head = DINOHead(student.embed_dim, NPROTO, hidden_dim=2048, bottleneck_dim=256, nlayers=3)
student, head = student.to(dev), head.to(dev)
teacher = copy.deepcopy(student).eval()
t_head = DINOHead(student.embed_dim, NPROTO, hidden_dim=2048, bottleneck_dim=256, nlayers=3).to(dev).eval()
t_head.load_state_dict(head.state_dict())  # weight_norm's module cannot be deep-copied
for p in list(teacher.parameters()) + list(t_head.parameters()):
    p.requires_grad_(False)
dino_loss, ibot_loss, koleo = DINOLoss(NPROTO).to(dev), iBOTPatchLoss(NPROTO).to(dev), KoLeoLoss().to(dev)
opt = torch.optim.AdamW(list(student.parameters()) + list(head.parameters()), lr=5e-4, weight_decay=0.04)
c_student, c_head = torch.compile(student), torch.compile(head)


def random_masks(n):  # kx's stand-in for dinov2's MaskingGenerator: half the crops masked 10-50 %
    m = torch.zeros(n, NP, dtype=torch.bool, device=dev)
    for i in range(0, n, 2):
        k = int(NP * (0.1 + 0.4 * torch.rand(()).item()))
        m[i, torch.randperm(NP, device=dev)[:k]] = True
    return m


for step in range(STEPS):
    g = torch.randn(NG * B, 3, G, G, device=dev)
    loc = torch.randn(NL * B, 3, L, L, device=dev)
    masks = random_masks(NG * B)
    n_masked = int(masks.sum())
    with torch.no_grad(), torch.autocast("cuda", dtype=torch.bfloat16):
        tf = teacher.forward_features(g)
        t_out = t_head(torch.cat([tf["x_norm_clstoken"], tf["x_norm_patchtokens"][masks]]))
        t_cls, t_patch = t_out[: NG * B], t_out[NG * B :]
        t_cls_sm = dino_loss.softmax_center_teacher(t_cls, teacher_temp=0.07)
        t_patch_sm = ibot_loss.softmax_center_teacher(t_patch.unsqueeze(0), teacher_temp=0.07).squeeze(0)
        dino_loss.update_center(t_cls)
        ibot_loss.update_center(t_patch.unsqueeze(0))
    with torch.autocast("cuda", dtype=torch.bfloat16):
        sg, sl = c_student.forward_features(g, masks), c_student.forward_features(loc)
        s_out = c_head(
            torch.cat([sg["x_norm_clstoken"], sl["x_norm_clstoken"], sg["x_norm_patchtokens"][masks]])
        )
        s_g, s_l, s_patch = s_out[: NG * B], s_out[NG * B : (NG + NL) * B], s_out[(NG + NL) * B :]
        loss_local = dino_loss(list(s_l.chunk(NL)), list(t_cls_sm.chunk(NG))) / (NG * NL)
        loss_global = dino_loss(list(s_g.chunk(NG)), list(t_cls_sm.chunk(NG))) / (NG * NG)
        loss_ibot = ibot_loss.forward_masked(
            s_patch, t_patch_sm, student_masks_flat=masks, n_masked_patches=n_masked
        )
        loss_koleo = 0.1 * sum(koleo(p) for p in sg["x_norm_clstoken"].chunk(NG))
        loss = loss_local + loss_global + loss_ibot + loss_koleo
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    with torch.no_grad():  # EMA teacher
        for ps, pt in zip(
            list(student.parameters()) + list(head.parameters()),
            list(teacher.parameters()) + list(t_head.parameters()),
        ):
            pt.mul_(0.992).add_(ps.detach(), alpha=0.008)
    print(
        f"step {step}: loss {loss.item():.4f} (dino local {loss_local.item():.3f}, global {loss_global.item():.3f}, "
        f"ibot {loss_ibot.item():.3f} over {n_masked} patches, koleo {loss_koleo.item():.3f})"
    )

student.eval(), head.eval()
g = torch.randn(B, 3, G, G, device=dev)
with torch.no_grad():
    got = c_head(c_student.forward_features(g)["x_norm_clstoken"])
    want = head(student.forward_features(g)["x_norm_clstoken"])
print(f"compiled vs eager student head output (eval, fp32) rel err {S.rel_err(got, want):.1e}")
torch.cuda.synchronize()
print("dinov2_ssl_heads_compile_train ok")
