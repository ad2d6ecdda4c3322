"""Prefill and decode models from one ``torch.export`` of a Hugging Face decoder with its key/
value cache (issue 32): one import, resized to a prompt of 8 tokens with an empty cache and to
one token after 8 cached positions; both fully static, both equal to torch, and greedy decoding
of 16 tokens (a resize per past length) equals torch's ``generate``. Also as separate commands
(``one-import-pytorch``, then ``one-resize`` of the written file). And one static decode model
for every past length (a fixed-size cache, the position and a mask as inputs: ``WithMask``),
imported by the command and run by one LiteRT interpreter for every step, equals ``generate``."""

from __future__ import annotations

import numpy as np
import pytest

import one_cmds
from one_cmds.cli import drivers
from support.hf_cache import (
    WithCache,
    decoder,
    export,
    export_masked,
    generate,
    masked_decode,
    torch,
)

FAMILIES = ("llama", "qwen2", "mistral", "phi", "gpt2")
PROMPT = [1, 5, 9, 13, 17, 21, 25, 29]
STEPS = 16


def _exported(family: str, folder) -> tuple:
    found = decoder(family)
    path = folder / "decoder.pt2"
    export(found, str(path))
    return found, one_cmds.load(str(path))


def _shapes(found, tokens: int, past: int) -> list[list[int]]:
    return [[1, tokens]] + [found.cache_shape(past)] * (2 * found.layers)


def _unknown_dims(model: one_cmds.Model) -> list[str]:
    return [t.name for t in model.main.referenced_tensors()
            if t.shape is None or any(d is None or d < 0 for d in t.shape)]  # fmt: skip


def _torch_step(found, ids: np.ndarray, past: list[np.ndarray]) -> list[np.ndarray]:
    with torch.no_grad():
        out = WithCache(found)(torch.from_numpy(ids), *(torch.from_numpy(p) for p in past))
    return [t.numpy() for t in out]


def _close(got: list[np.ndarray], want: list[np.ndarray]) -> None:
    assert [g.shape for g in got] == [w.shape for w in want]
    for g, w in zip(got, want, strict=True):
        assert np.allclose(g, w, rtol=1e-4, atol=1e-4 * max(1.0, float(np.abs(w).max())))


@pytest.mark.parametrize("family", FAMILIES)
def test_prefill_decode_and_greedy_continuation(family, tmp_path):
    """One export per family (the costly part): the static prefill and decode models equal
    torch, then greedy decoding with a resize per past length equals ``generate``."""
    found, base = _exported(family, tmp_path)
    prefill = one_cmds.resize(base, _shapes(found, len(PROMPT), 0))
    decode = one_cmds.resize(base, _shapes(found, 1, len(PROMPT)))
    assert _unknown_dims(prefill) == [] and _unknown_dims(decode) == []
    ids = np.array([PROMPT], np.int64)
    empty = [np.zeros(found.cache_shape(0), np.float32)] * (2 * found.layers)
    got = one_cmds.Interpreter(prefill).run([ids, *empty])
    _close(got, _torch_step(found, ids, empty))
    token = np.array([[int(np.argmax(got[0][0, -1]))]], np.int64)
    cache = list(got[1:])
    _close(one_cmds.Interpreter(decode).run([token, *cache]), _torch_step(found, token, cache))
    tokens, ids = list(PROMPT), np.array([PROMPT], np.int64)
    cache = [np.zeros(found.cache_shape(0), np.float32)] * (2 * found.layers)
    for _ in range(STEPS):
        past = cache[0].shape[2]
        model = one_cmds.resize(base, _shapes(found, ids.shape[1], past))
        logits, *cache = one_cmds.Interpreter(model).run([ids, *cache])
        tokens.append(int(np.argmax(logits[0, -1])))
        ids = np.array([[tokens[-1]]], np.int64)
    assert tokens == generate(found, PROMPT, STEPS)


def test_separate_commands_write_static_models(tmp_path):
    found = decoder("llama")
    export(found, str(tmp_path / "decoder.pt2"))
    imported = str(tmp_path / "decoder.circle")
    assert drivers.one_import_pytorch(["-i", str(tmp_path / "decoder.pt2"), "-o", imported]) == 0
    shapes = ",".join(str(s).replace(" ", "") for s in _shapes(found, 1, len(PROMPT)))
    decode_path = str(tmp_path / "decode.circle")
    assert drivers.one_resize(["-i", imported, "-o", decode_path, "-s", shapes]) == 0
    decode = one_cmds.load(decode_path)
    assert _unknown_dims(decode) == []
    rng = np.random.default_rng(0)
    cache = [rng.normal(0, 1, found.cache_shape(len(PROMPT))).astype(np.float32)
             for _ in range(2 * found.layers)]  # fmt: skip
    token = np.array([[7]], np.int64)
    _close(one_cmds.Interpreter(decode).run([token, *cache]), _torch_step(found, token, cache))


@pytest.mark.parametrize("family", FAMILIES)
def test_one_decode_model_serves_every_past_length(family, tmp_path):
    found = decoder(family)
    pt2, circle = str(tmp_path / "masked.pt2"), str(tmp_path / "masked.circle")
    export_masked(found, pt2, max_past=len(PROMPT) + STEPS)
    assert drivers.one_import_pytorch(["-i", pt2, "-o", circle]) == 0
    model = one_cmds.load(circle)
    assert _unknown_dims(model) == []
    cache = [np.zeros(found.cache_shape(len(PROMPT) + STEPS), np.float32)
             for _ in range(2 * found.layers)]  # fmt: skip
    window = 8 if family == "mistral" else None  # its sliding window
    tokens = masked_decode(one_cmds.Interpreter(model).run, cache, PROMPT, STEPS, window)
    assert tokens == generate(found, PROMPT, STEPS)
