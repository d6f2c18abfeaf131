"""Corpus driver (kx's code): jik876/hifi-gan's GAN vocoder training step (models.py: the V1
Generator of weight-normed transposed convolutions and ResBlock1 stacks, the
MultiPeriodDiscriminator (periods 2, 3, 5, 7, 11, 2-D convolutions over the folded waveform) and
the MultiScaleDiscriminator (spectral-norm on the first scale, average pooling), with
discriminator_loss / generator_loss / feature_loss) under torch.compile, step for step as
train.py does it: generator forward, discriminator update on detached audio, then the generator
update with the 45 x mel L1, feature-matching and adversarial losses, AdamW (0.8, 0.99) for both.
Random audio segments stand in for LJSpeech; the mel spectrogram is computed as meldataset's
(torch.stft with return_complex=True, which current torch requires). Then the compiled and eager
generator's audio compared in eval mode."""

import _corpus16_support as S
import torch
import torch.nn.functional as F

S.install_matplotlib_standin()
from models import (  # noqa: E402
    Generator,
    MultiPeriodDiscriminator,
    MultiScaleDiscriminator,
    discriminator_loss,
    feature_loss,
    generator_loss,
)

torch.manual_seed(0)
dev = "cuda"
h = S.load_hifigan_config("config_v1.json")
BATCH, SEGMENT, STEPS = S.pick((4, 8192, 3), (1, 2048, 2))
if S.small():
    h.upsample_initial_channel = 32

generator = Generator(h).to(dev)
mpd = MultiPeriodDiscriminator().to(dev)
msd = MultiScaleDiscriminator().to(dev)
optim_g = torch.optim.AdamW(generator.parameters(), h.learning_rate, betas=[h.adam_b1, h.adam_b2])
optim_d = torch.optim.AdamW(list(msd.parameters()) + list(mpd.parameters()), h.learning_rate, betas=[h.adam_b1, h.adam_b2])
c_generator, c_mpd, c_msd = torch.compile(generator), torch.compile(mpd), torch.compile(msd)

generator.train(), mpd.train(), msd.train()
for step in range(STEPS):
    y = torch.randn(BATCH, SEGMENT, device=dev).mul(0.3).tanh()
    x = S.hifigan_mel(y, h, h.fmax)
    y_mel = S.hifigan_mel(y, h, h.fmax_for_loss)
    y = y.unsqueeze(1)

    y_g_hat = c_generator(x)
    y_g_hat_mel = S.hifigan_mel(y_g_hat.squeeze(1), h, h.fmax_for_loss)

    optim_d.zero_grad()
    y_df_hat_r, y_df_hat_g, _, _ = c_mpd(y, y_g_hat.detach())
    loss_disc_f, _, _ = discriminator_loss(y_df_hat_r, y_df_hat_g)
    y_ds_hat_r, y_ds_hat_g, _, _ = c_msd(y, y_g_hat.detach())
    loss_disc_s, _, _ = discriminator_loss(y_ds_hat_r, y_ds_hat_g)
    loss_disc_all = loss_disc_s + loss_disc_f
    loss_disc_all.backward()
    optim_d.step()

    optim_g.zero_grad()
    loss_mel = F.l1_loss(y_mel, y_g_hat_mel) * 45
    y_df_hat_r, y_df_hat_g, fmap_f_r, fmap_f_g = c_mpd(y, y_g_hat)
    y_ds_hat_r, y_ds_hat_g, fmap_s_r, fmap_s_g = c_msd(y, y_g_hat)
    loss_fm_f = feature_loss(fmap_f_r, fmap_f_g)
    loss_fm_s = feature_loss(fmap_s_r, fmap_s_g)
    loss_gen_f, _ = generator_loss(y_df_hat_g)
    loss_gen_s, _ = generator_loss(y_ds_hat_g)
    loss_gen_all = loss_gen_s + loss_gen_f + loss_fm_s + loss_fm_f + loss_mel
    loss_gen_all.backward()
    optim_g.step()
    print(f"step {step}: disc {loss_disc_all.item():.4f} gen {loss_gen_all.item():.4f} mel L1 x45 {loss_mel.item():.4f}")
    assert torch.isfinite(loss_gen_all) and torch.isfinite(loss_disc_all)

generator.eval()
with torch.no_grad():
    x = S.hifigan_mel(torch.randn(BATCH, SEGMENT, device=dev).mul(0.3).tanh(), h, h.fmax)
    err = S.rel_err(c_generator(x), generator(x))
print(f"compiled vs eager generator audio rel err {err:.1e}")
assert err < 1e-2, err
torch.cuda.synchronize()
print("hifigan_compile_train ok")
