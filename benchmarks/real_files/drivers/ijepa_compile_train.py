"""Corpus driver (kx's code): facebookresearch/ijepa's I-JEPA pre-training step (src/train.py's
train_step written out: context encoder on the kept patches, predictor on context + mask tokens,
EMA target encoder over the full image, layer-normed targets gathered at the predicted blocks,
smooth-L1 loss, momentum update) on its own modules: src/models/vision_transformer.py
(VisionTransformer with `masks` (apply_masks gathers the kept patch indices),
VisionTransformerPredictor with mask tokens and repeat_interleave_batch) and
src/masks/multiblock.py's MaskCollator (per-batch sampled block sizes: 1 context block, 4
target blocks, min_keep 10, context with the targets removed, all cut to the batch's shortest),
with the encoder and the predictor torch.compile'd: ViT-S/16 at 224 (196 patches), predictor
depth 6 / 384, batch 16 random images, bf16 autocast, AdamW, EMA 0.996, 5 steps (the mask sizes
change every step, so the compiled graphs see changing token counts), then the compiled loss vs
the eager loss on a new batch with the same masks."""

import copy

import _corpus13_support as S
import torch
import torch.nn.functional as F
from src.masks.multiblock import MaskCollator
from src.masks.utils import apply_masks
from src.models.vision_transformer import vit_predictor, vit_small, vit_tiny
from src.utils.tensors import repeat_interleave_batch

torch.manual_seed(0)
dev = "cuda"
IMG, B, STEPS = S.pick((224, 16, 5), (128, 2, 2))
make_vit = S.pick(vit_small, vit_tiny)
PRED_DIM, PRED_DEPTH = S.pick((384, 6), (96, 1))

encoder = make_vit(img_size=[IMG], patch_size=16).to(dev)
predictor = vit_predictor(
    num_patches=encoder.patch_embed.num_patches,
    embed_dim=encoder.embed_dim,
    predictor_embed_dim=PRED_DIM,
    depth=PRED_DEPTH,
    num_heads=encoder.num_heads,
).to(dev)
target = copy.deepcopy(encoder).requires_grad_(False)
collator = MaskCollator(
    input_size=IMG,
    patch_size=16,
    pred_mask_scale=(0.15, 0.2),
    enc_mask_scale=(0.85, 1.0),
    npred=4,
    min_keep=S.pick(10, 2),  # a block must keep more than this many patches (toy grids are 8 x 8)
)
opt = torch.optim.AdamW(list(encoder.parameters()) + list(predictor.parameters()), lr=1e-4, weight_decay=0.04)
c_encoder, c_predictor, c_target = torch.compile(encoder), torch.compile(predictor), torch.compile(target)


def jepa_loss(enc, pred, tgt, imgs, masks_enc, masks_pred):
    with torch.autocast("cuda", dtype=torch.bfloat16):
        with torch.no_grad():
            h = tgt(imgs)
            h = F.layer_norm(h, (h.size(-1),))
            h = repeat_interleave_batch(apply_masks(h, masks_pred), len(imgs), repeat=len(masks_enc))
        z = pred(enc(imgs, masks_enc), masks_enc, masks_pred)
        return F.smooth_l1_loss(z.float(), h.float())


def batch():
    imgs, masks_enc, masks_pred = collator([torch.randn(3, IMG, IMG) for _ in range(B)])
    return imgs.to(dev), [m.to(dev) for m in masks_enc], [m.to(dev) for m in masks_pred]


for step in range(STEPS):
    imgs, masks_enc, masks_pred = batch()
    loss = jepa_loss(c_encoder, c_predictor, c_target, imgs, masks_enc, masks_pred)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    with torch.no_grad():
        for q, k in zip(encoder.parameters(), target.parameters()):
            k.mul_(0.996).add_(q.detach(), alpha=0.004)
    print(
        f"step {step} ctx {masks_enc[0].shape[1]} / pred {masks_pred[0].shape[1]} patches: loss {loss.item():.4f}"
    )

imgs, masks_enc, masks_pred = batch()
with torch.no_grad():
    got = jepa_loss(c_encoder, c_predictor, c_target, imgs, masks_enc, masks_pred)
    want = jepa_loss(encoder, predictor, target, imgs, masks_enc, masks_pred)
print(f"compiled {got.item():.4f} eager {want.item():.4f} rel err {S.rel_err(got, want):.1e}")
torch.cuda.synchronize()
print("ijepa_compile_train ok")
