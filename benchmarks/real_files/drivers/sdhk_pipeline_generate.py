"""Corpus driver (kx's code): hkproj/pytorch-stable-diffusion's text-to-image pipeline
(sd/pipeline.py generate: CLIP on the conditional and unconditional prompts, classifier-free
guidance with the latents repeated twice, the Diffusion UNet (sd/diffusion.py: time embedding,
residual blocks, cross-attention transformer blocks, skip connections) stepped by sd/ddpm.py's
DDPMSampler, then the VAE_Decoder; 512 x 512 images, 64 x 64 latents) with every model wrapped in
torch.compile, as a user would pass them in `models`, random weights (no checkpoint), 3 DDPM
steps, a word-hash tokenizer standing in for transformers' CLIPTokenizer; the image checked
against the same seed's run with the eager models. The UNet (about 860M parameters, float32) is
this corpus's largest model."""

import _corpus16_support as S
import numpy as np
import torch

S.install_tqdm_standin()
import pipeline  # noqa: E402
from clip import CLIP  # noqa: E402
from decoder import VAE_Decoder  # noqa: E402
from diffusion import Diffusion  # noqa: E402

torch.manual_seed(0)
dev = "cuda"
STEPS = S.pick(3, 2)
if S.small():  # toy image size: 64 x 64 images, 8 x 8 latents
    pipeline.WIDTH = pipeline.HEIGHT = 64
    pipeline.LATENTS_WIDTH = pipeline.LATENTS_HEIGHT = 8

eager = {"clip": CLIP().to(dev).eval(), "decoder": VAE_Decoder().to(dev).eval(), "diffusion": Diffusion().to(dev).eval()}
compiled = {name: torch.compile(m) for name, m in eager.items()}
args = dict(
    prompt="A cat stretching on the floor, highly detailed, ultra sharp, cinematic, 100mm lens, 8k resolution.",
    uncond_prompt="",
    input_image=None,
    strength=0.9,
    do_cfg=True,
    cfg_scale=8,
    sampler_name="ddpm",
    n_inference_steps=STEPS,
    seed=42,
    device=dev,
    idle_device=None,
    tokenizer=S.FixedTokenizerStandin(),
)
img = pipeline.generate(models=compiled, **args)
img_e = pipeline.generate(models=eager, **args)
diff = np.abs(img.astype(np.int16) - img_e.astype(np.int16))
print(f"image {img.shape} {img.dtype}: compiled vs eager mean |diff| {diff.mean():.3f} levels, max {diff.max()}")
assert img.shape == (pipeline.HEIGHT, pipeline.WIDTH, 3) and diff.mean() < 2.0, diff.mean()
torch.cuda.synchronize()
print("sdhk_pipeline_generate ok")
