"""Corpus driver (kx's code): openai/whisper's transcription with word-level timestamps
(whisper/transcribe.py transcribe(), as `whisper audio.wav --model tiny --word_timestamps True`
does after load_model) for a Whisper "tiny" multilingual model (ModelDimensions of tiny: 80 mels,
4+4 layers, d 384, 6 heads, vocab 51865) with random weights set as tiny's alignment heads
(set_alignment_heads with tiny's base85 mask) in place of the downloaded checkpoint, on 12 s of
synthetic 16 kHz audio (tones + noise; load_audio would call ffmpeg): log-Mel spectrogram (STFT),
then per 30 s window DecodingTask's greedy decode loop (fp16, KV cache through forward hooks,
timestamp rules, `.tolist()` of tokens each window), and add_word_timestamps ->
timing.find_alignment: cross-attention weights of the alignment heads, median_filter (whisper/
triton_ops.py median_kernel: a Triton kernel whose source is generated per filter width and
installed with JITFunction._unsafe_update_src) and dtw_cuda (the Triton dtw_kernel over the
skewed cost matrix, then numba's backtrace on the host). Random weights may decode no text
token, so find_alignment is then also called directly for a fixed English sentence with filter
widths 7 (the default) and 5, as add_word_timestamps would. language 'en',
temperature 0 (no fallback), condition_on_previous_text off, no_speech_threshold off. tiktoken
reads whisper/assets/multilingual.tiktoken (no download); numba is imported by timing.py."""

import numpy as np
import torch
import whisper
from whisper.audio import N_FRAMES, log_mel_spectrogram, pad_or_trim
from whisper.timing import find_alignment
from whisper.tokenizer import get_tokenizer

torch.manual_seed(0)
dims = whisper.ModelDimensions(
    n_mels=80,
    n_audio_ctx=1500,
    n_audio_state=384,
    n_audio_head=6,
    n_audio_layer=4,
    n_vocab=51865,
    n_text_ctx=448,
    n_text_state=384,
    n_text_head=6,
    n_text_layer=4,
)
model = whisper.Whisper(dims)
model.set_alignment_heads(whisper._ALIGNMENT_HEADS["tiny"])
model = model.to("cuda")

sr = 16000
t = np.arange(12 * sr, dtype=np.float32) / sr
rng = np.random.default_rng(0)
audio = (
    0.3 * np.sin(2 * np.pi * 220 * t) * (np.sin(2 * np.pi * 0.5 * t) > 0)
    + 0.2 * np.sin(2 * np.pi * 330 * t)
    + 0.05 * rng.standard_normal(t.shape)
).astype(np.float32)

result = model.transcribe(
    audio,
    language="en",
    temperature=0.0,
    word_timestamps=True,
    condition_on_previous_text=False,
    no_speech_threshold=None,
    fp16=True,
)
print("segments", len(result["segments"]), "words", sum(len(s.get("words", [])) for s in result["segments"]))

tokenizer = get_tokenizer(
    model.is_multilingual, num_languages=model.num_languages, language="en", task="transcribe"
)
mel = log_mel_spectrogram(audio, model.dims.n_mels, padding=N_FRAMES)
segment = pad_or_trim(mel[:, :N_FRAMES], N_FRAMES).to(model.device).to(torch.float16)
text_tokens = tokenizer.encode(" And so my fellow Americans, ask not what your country can do for you.")
for width in (7, 5):
    words = find_alignment(model, tokenizer, text_tokens, segment, 1100, medfilt_width=width)
    print(width, [(w.word, round(float(w.start), 2), round(float(w.end), 2)) for w in words[:4]])
torch.cuda.synchronize()
print("whisper transcribe ok")
