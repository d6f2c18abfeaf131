"""Corpus driver (kx's code): openai/sparse_autoencoder's TopK SAE training step with its
Triton sparse kernels, through train.py as released: FastAutoencoder (d_model 768, 32768
latents, k=32, auxk=256) inside training_loop_ (autocast fp16, GradScaler, fused Adam,
EMA), the main() loss (kernels.mse + AuxK kernels.normalized_mse over decode_sparse).
Kernels: TritonDecoderAutograd (sparse @ dense forward; sparse^T @ dense via COO sort +
atomic_add, dense @ dense -> sparse-out backward), the encoder backward's
triton_sparse_transpose_dense_matmul, the MSE kernel, and triton_add_mul_ in
unit_norm_decoder_grad_adjustment_. train.py imports wandb at module level (stubbed: init/
log, never called with a real run); the single-GPU "shard" comm is a one-rank stand-in
(sharded_topk and the allreduce hooks require a comm object; all_gather copies)."""

import _corpus_support
import torch

_corpus_support.stub_module("wandb", init=lambda **kw: None, log=lambda *a, **kw: None)
import sparse_autoencoder.train as sae_train  # noqa: E402


class OneRankComm:
    """What train.Comm answers for a process group of size 1 (torchrun --nproc_per_node 1)."""

    def all_reduce(self, x, op=None, async_op=False):
        return None

    def all_gather(self, x_list, x, async_op=False):
        x_list[0].copy_(x)

    def broadcast(self, x, src, async_op=False):
        return None

    def barrier(self):
        return None

    def size(self):
        return 1


cfg = sae_train.Config()  # n_dirs 32768, d_model 768, k 32, auxk 256, auxk_coef 1/32
comms = sae_train.ShardingComms(
    n_replicas=1,
    n_op_shards=1,
    dp_rank=0,
    sh_rank=0,
    dp_comm=None,
    sh_comm=OneRankComm(),
    _rank=0,
)
torch.manual_seed(0)
ae = sae_train.FastAutoencoder(
    n_dirs_local=cfg.n_dirs,
    d_model=cfg.d_model,
    k=cfg.k,
    auxk=cfg.auxk,
    dead_steps_threshold=1,
    comms=comms,
).cuda()

BS, STEPS = 2048, 3
acts = [torch.randn(BS, cfg.d_model, dtype=torch.float16) * 3 + 0.5 for _ in range(STEPS)]
with torch.no_grad():
    ae.pre_bias.data = torch.cat(acts).float().mean(0).cuda()  # init_from_data_ without geom_median


def loss_fn(ae, flat_acts_train_batch, recons, info, logger):  # main()'s loss
    return logger.logkv("train_recons", sae_train.mse(recons, flat_acts_train_batch)) + logger.logkv(
        "train_maxk_recons",
        cfg.auxk_coef
        * sae_train.normalized_mse(
            ae.decode_sparse(info["auxk_inds"], info["auxk_vals"]),
            flat_acts_train_batch - recons.detach() + ae.pre_bias.detach(),
        ).nan_to_num(0),
    )


sae_train.training_loop_(ae, iter(acts), loss_fn, lr=cfg.lr, comms=comms, eps=cfg.eps, ema_multiplier=0.999)
torch.cuda.synchronize()
print("sparse_autoencoder topk training ok", tuple(ae.decoder.weight.shape))
