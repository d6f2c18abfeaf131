"""Corpus driver (kx's code): FoundationVision/LlamaGen's class-conditional sampling
(autoregressive/models/generate.py, gpt-fast's decode loop) run as
autoregressive/sample/sample_c2i.py does with `--compile`: GPT-B (c2i, vocab 16384, 256 x 256
images / 16 = a 16 x 16 token grid) in bf16, eval, `torch.compile(gpt_model,
mode="reduce-overhead", fullgraph=True)` (CUDA graphs), then `generate(gpt_model, c_indices,
latent_size ** 2, cfg_scale=4.0, cfg_interval=-1, temperature=1.0, top_k=2000, top_p=1.0,
sample_logits=True)` for the script's 8 class labels: setup_caches (a static KV cache per layer,
causal mask, 2D RoPE table), a compiled prefill of the class tokens (cond + null class for
classifier-free guidance, batch 16), then 255 compiled decode steps (decode_one_token: one token
per row, the KV cache updated in place at input_pos, the CFG mix of cond / uncond logits,
top-k filtering, softmax, torch.multinomial), each under sdp_kernel(enable_math=True); then a
second call with cfg_interval=64 (cfg_flag flips mid-loop) and top_p=0.95 (top_k_top_p_filtering's
sort / cumsum / scatter). Finally the VQ-16 tokenizer (tokenizer/tokenizer_image/vq_model.py,
random weights) decodes the codes to images (decode_code). Random weights (the checkpoints are
downloads), and the script's reset_parameters no-op is not applied (uninitialised weights would
give NaN probabilities). A decode loop of compiled steps."""

import _corpus6_support as S
import torch
from autoregressive.models.generate import generate
from autoregressive.models.gpt import GPT_models
from tokenizer.tokenizer_image.vq_model import VQ_models

torch.backends.cuda.matmul.allow_tf32 = True
torch.backends.cudnn.allow_tf32 = True
torch.set_float32_matmul_precision("high")
torch.manual_seed(0)
torch.set_grad_enabled(False)
device = "cuda"

image_size, downsample, codebook_size, codebook_embed_dim = 256, 16, 16384, 8
vq_model = VQ_models["VQ-16"](codebook_size=codebook_size, codebook_embed_dim=codebook_embed_dim)
vq_model.to(device)
vq_model.eval()

latent_size = S.pick(image_size // downsample, 4)
gpt_model = GPT_models["GPT-B"](
    vocab_size=codebook_size, block_size=latent_size**2, num_classes=1000, cls_token_num=1, model_type="c2i"
).to(device=device, dtype=torch.bfloat16)
if S.small():
    gpt_model.layers = gpt_model.layers[:2]
gpt_model.eval()
gpt_model = torch.compile(gpt_model, mode="reduce-overhead", fullgraph=True)

class_labels = [207, 360, 387, 974, 88, 979, 417, 279]
c_indices = torch.tensor(class_labels, device=device)
qzshape = [len(class_labels), codebook_embed_dim, latent_size, latent_size]
index_sample = generate(
    gpt_model,
    c_indices,
    latent_size**2,
    cfg_scale=4.0,
    cfg_interval=-1,
    temperature=1.0,
    top_k=2000,
    top_p=1.0,
    sample_logits=True,
)
print("codes", tuple(index_sample.shape), index_sample[0, :8].tolist())
index_sample2 = generate(
    gpt_model,
    c_indices,
    latent_size**2,
    cfg_scale=4.0,
    cfg_interval=S.pick(64, 4),
    temperature=1.0,
    top_k=0,
    top_p=0.95,
    sample_logits=True,
)
samples = vq_model.decode_code(index_sample, qzshape)
torch.cuda.synchronize()
print("llamagen c2i sample ok", tuple(samples.shape), tuple(index_sample2.shape))
