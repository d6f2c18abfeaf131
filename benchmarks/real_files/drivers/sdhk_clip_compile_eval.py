"""Corpus driver (kx's code): hkproj/pytorch-stable-diffusion's from-scratch CLIP text encoder
(sd/clip.py CLIP: token + learned position embeddings, 12 pre-LayerNorm layers of causal
SelfAttention from sd/attention.py with QuickGELU MLPs, final LayerNorm; 77 tokens, width 768)
under torch.compile in eval mode with random weights, as pipeline.generate calls it for the
conditional and unconditional prompts (a word-hash tokenizer stands in for transformers'
CLIPTokenizer), batches of 1 and 4 prompts; compiled embeddings checked against eager, and the
causal mask checked (changing a later token leaves earlier positions unchanged)."""

import _corpus16_support as S
import torch
from clip import CLIP

torch.manual_seed(0)
dev = "cuda"
tok = S.FixedTokenizerStandin()
prompts = [
    "A cat stretching on the floor, highly detailed, ultra sharp, cinematic, 100mm lens, 8k resolution.",
    "",
    "a watercolor painting of a lighthouse at dusk",
    "an astronaut riding a horse on the moon",
]

clip = CLIP().to(dev).eval()
compiled = torch.compile(clip)
with torch.no_grad():
    for batch in (prompts[:1], prompts):
        ids = torch.tensor(tok.batch_encode_plus(batch, padding="max_length", max_length=77).input_ids, device=dev)
        got, want = compiled(ids), clip(ids)
        err = S.rel_err(got, want)
        print(f"{len(batch)} prompt(s): context {tuple(got.shape)} compiled vs eager rel err {err:.1e}")
        assert got.shape == (len(batch), 77, 768) and err < 1e-2, err
    ids2 = ids.clone()
    ids2[:, 40] = 1234
    moved = (compiled(ids2) - got).abs().amax(dim=(0, 2))
    print(f"causal: max change before / after position 40: {moved[:40].max().item():.1e} / {moved[40:].max().item():.1e}")
    assert moved[:40].max().item() < 1e-4 < moved[40:].max().item()

torch.cuda.synchronize()
print("sdhk_clip_compile_eval ok")
