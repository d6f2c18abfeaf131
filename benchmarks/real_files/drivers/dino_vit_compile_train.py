"""Corpus driver (kx's code): facebookresearch/dino's self-distillation model (vision_transformer.py:
vit_small (ViT-S/16: PatchEmbed, cls token, interpolate_pos_encoding (bicubic resize of the
position embeddings for any crop size), Blocks of Attention / Mlp with DropPath), DINOHead (3-layer
MLP, L2-normalised bottleneck, a weight_norm'd last layer with its gain frozen); utils.py:
MultiCropWrapper (crops grouped by resolution with torch.unique_consecutive / cumsum over their
sizes, one backbone call per resolution, one head call), get_params_groups, clip_gradients,
cancel_gradients_last_layer, cosine_scheduler) trained with torch.compile as main_dino.py trains
it: a student (drop_path 0.1) and an EMA teacher, batch 32 x (2 global 224^2 crops + 8 local 96^2
crops), out_dim 65,536, fp16 autocast with a GradScaler, AdamW over the params groups, the DINO
loss (main_dino.py's DINOLoss, repeated here without torch.distributed: teacher centering and
sharpening, cross-entropy of every student crop against the other global view's teacher output,
the center's EMA), gradient clipping 3.0, 5 steps with the teacher's momentum update; then the
compiled teacher vs eager on a new global batch."""

import _corpus11_support as S
import torch
import torch.nn.functional as F

S.install_pil_standin()
import utils  # noqa: E402
import vision_transformer as vits  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
BATCH, GLOBAL, LOCAL, NLOCAL, OUT_DIM, STEPS = S.pick((32, 224, 96, 8, 65536, 5), (2, 32, 16, 2, 256, 2))
EMBED = S.pick(None, 48)
arch = dict(patch_size=16) if EMBED is None else dict(patch_size=16, embed_dim=EMBED, depth=2, num_heads=3)
maker = vits.vit_small if EMBED is None else vits.VisionTransformer

student_backbone = maker(drop_path_rate=0.1, **arch)
teacher_backbone = maker(**arch)
dim = student_backbone.embed_dim
student = utils.MultiCropWrapper(student_backbone, vits.DINOHead(dim, OUT_DIM, use_bn=False, norm_last_layer=True)).to(dev)
teacher = utils.MultiCropWrapper(teacher_backbone, vits.DINOHead(dim, OUT_DIM, use_bn=False)).to(dev)
teacher.load_state_dict(student.state_dict())
for p in teacher.parameters():
    p.requires_grad = False
c_student, c_teacher = torch.compile(student), torch.compile(teacher)

optimizer = torch.optim.AdamW(utils.get_params_groups(student))
lr_schedule = utils.cosine_scheduler(0.0005 * BATCH / 256, 1e-6, 100, STEPS, warmup_epochs=10)
wd_schedule = utils.cosine_scheduler(0.04, 0.4, 100, STEPS)
momentum_schedule = utils.cosine_scheduler(0.996, 1.0, 100, STEPS)
scaler = torch.amp.GradScaler("cuda")
center = torch.zeros(1, OUT_DIM, device=dev)


def dino_loss(student_output, teacher_output, teacher_temp=0.04, student_temp=0.1):
    global center
    student_out = (student_output / student_temp).chunk(2 + NLOCAL)
    teacher_out = F.softmax((teacher_output - center) / teacher_temp, dim=-1).detach().chunk(2)
    total, n = 0, 0
    for iq, q in enumerate(teacher_out):
        for v in range(len(student_out)):
            if v == iq:
                continue
            total += torch.sum(-q * F.log_softmax(student_out[v], dim=-1), dim=-1).mean()
            n += 1
    with torch.no_grad():
        center = center * 0.9 + teacher_output.mean(0, keepdim=True) * 0.1
    return total / n


def crops():
    return [torch.randn(BATCH, 3, GLOBAL, GLOBAL, device=dev) for _ in range(2)] + [
        torch.randn(BATCH, 3, LOCAL, LOCAL, device=dev) for _ in range(NLOCAL)
    ]


for it in range(STEPS):
    for i, group in enumerate(optimizer.param_groups):
        group["lr"] = lr_schedule[it]
        if i == 0:
            group["weight_decay"] = wd_schedule[it]
    images = crops()
    with torch.autocast("cuda", dtype=torch.float16):
        teacher_output = c_teacher(images[:2])
        student_output = c_student(images)
        loss = dino_loss(student_output, teacher_output)
    optimizer.zero_grad()
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    utils.clip_gradients(student, 3.0)
    utils.cancel_gradients_last_layer(0, student, 1)
    scaler.step(optimizer)
    scaler.update()
    with torch.no_grad():
        m = momentum_schedule[it]
        for ps, pt in zip(student.parameters(), teacher.parameters(), strict=True):
            pt.data.mul_(m).add_((1 - m) * ps.detach().data)
    print(f"step {it} loss {loss.item():.4f}")

with torch.no_grad(), torch.autocast("cuda", dtype=torch.float16):
    images = crops()[:2]
    got, want = c_teacher(images), teacher(images)
print("teacher", tuple(got.shape), f"compiled vs eager rel err {S.rel_err(got, want):.1e}")
torch.cuda.synchronize()
print("dino vit compile train ok")
