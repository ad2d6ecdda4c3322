"""Hugging Face decoders with their key/value cache, exported with ``torch.export`` as a user
does to deploy a prefill and a decode model (issue 32): tiny seeded configs (vocabulary 128,
hidden 32, 2 layers, 4 heads) of Llama, Qwen2 and Mistral (2 key/value heads; Mistral with a
sliding window of 8), Phi (partial rotary) and GPT-2, random weights.

The exported module reads ``input_ids`` and the cache as tensors (``past_{2i}`` the keys and
``past_{2i+1}`` the values of layer ``i``, ``[batch, kv_heads, past, head_dim]``) and returns
the logits and the updated cache; batch, sequence and past length are dynamic.

:class:`WithMask` is the other way to deploy: one static decode model for every past length.
Its cache has a fixed size (``max_past`` slots, the unused ones zero), the token's position is
an input and a boolean mask ``[1, 1, 1, max_past + 1]`` says which slots it attends to (the
last one is the token itself; a sliding window is the caller's to apply); the caller copies
the new key/value (slot ``max_past`` of each present tensor) into the slot of its position."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

torch = pytest.importorskip(
    "torch", reason="PyTorch is not installed: pip install 'one-cmds[pytorch]'"
)
transformers = pytest.importorskip("transformers", reason="pip install 'one-cmds[test]'")

VOCAB = 128
_DECODER = dict(
    vocab_size=VOCAB, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
    num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
)  # fmt: skip


@dataclass(frozen=True)
class Decoder:
    """A seeded model and the shape of its cache."""

    model: torch.nn.Module
    layers: int
    kv_heads: int
    head_dim: int

    def cache_shape(self, past: int) -> list[int]:
        return [1, self.kv_heads, past, self.head_dim]


def decoder(name: str) -> Decoder:
    """The seeded tiny model ``name`` (llama, qwen2, mistral, phi, gpt2)."""
    t = transformers
    torch.manual_seed(0)
    if name == "gpt2":
        model = t.GPT2LMHeadModel(t.GPT2Config(vocab_size=VOCAB, n_embd=32, n_layer=2, n_head=4))
        return Decoder(model.eval(), 2, 4, 8)
    config = {
        "llama": lambda: t.LlamaConfig(**_DECODER),
        "qwen2": lambda: t.Qwen2Config(**_DECODER),
        "mistral": lambda: t.MistralConfig(**_DECODER, head_dim=8, sliding_window=8),
        "phi": lambda: t.PhiConfig(**_DECODER, partial_rotary_factor=0.5),
    }[name]()
    model = t.AutoModelForCausalLM.from_config(config)
    return Decoder(model.eval(), 2, 2, 8)


class WithCache(torch.nn.Module):
    """``(input_ids, *past) -> (logits, *present)``, positions following the past."""

    def __init__(self, found: Decoder) -> None:
        super().__init__()
        self.model, self.layers = found.model, found.layers

    def forward(self, input_ids: torch.Tensor, *past: torch.Tensor):
        cache = transformers.cache_utils.DynamicCache()
        for i in range(self.layers):
            cache.update(past[2 * i], past[2 * i + 1], i)
        start = past[0].shape[2]
        positions = torch.arange(start, start + input_ids.shape[1]).unsqueeze(0)
        out = self.model(
            input_ids=input_ids,
            past_key_values=cache,
            position_ids=positions.expand(input_ids.shape[0], -1),
            use_cache=True,
        )
        present = [t for layer in out.past_key_values.layers for t in (layer.keys, layer.values)]
        return (out.logits, *present)


class WithMask(torch.nn.Module):
    """``(input_ids, position_ids, mask, *past) -> (logits, *present)`` over a fixed-size
    cache (see the module docstring)."""

    def __init__(self, found: Decoder) -> None:
        super().__init__()
        self.model, self.layers = found.model, found.layers

    def forward(self, input_ids, position_ids, mask, *past):
        cache = transformers.cache_utils.DynamicCache()
        for i in range(self.layers):
            cache.update(past[2 * i], past[2 * i + 1], i)
        out = self.model(
            input_ids=input_ids,
            past_key_values=cache,
            position_ids=position_ids,
            attention_mask=mask,
            use_cache=True,
        )
        present = [t for layer in out.past_key_values.layers for t in (layer.keys, layer.values)]
        return (out.logits, *present)


def export_masked(found: Decoder, path: str, max_past: int) -> None:
    """``torch.export`` of :class:`WithMask` for one token and ``max_past`` slots (static)."""
    dtype = next(found.model.parameters()).dtype
    past = tuple(torch.zeros(found.cache_shape(max_past), dtype=dtype)
                 for _ in range(2 * found.layers))  # fmt: skip
    ids = torch.ones(1, 1, dtype=torch.int64)
    mask = torch.ones(1, 1, 1, max_past + 1, dtype=torch.bool)
    program = torch.export.export(WithMask(found), (ids, ids * 0, mask, *past))
    torch.export.save(program, path)


def masked_decode(run, cache: list, prompt: list[int], steps: int, window: int | None = None):
    """Greedy decoding with a :class:`WithMask` model: ``run(inputs) -> (logits, *present)``;
    the prompt goes in token by token; ``cache`` (zeros, ``max_past`` slots) is filled in
    place. Returns the prompt and ``steps`` new tokens."""
    max_past = cache[0].shape[2]
    tokens = list(prompt)
    for position in range(len(prompt) + steps - 1):
        mask = np.zeros((1, 1, 1, max_past + 1), np.bool_)
        mask[..., max(0, position - (window or max_past) + 1) : position] = True
        mask[..., max_past] = True
        ids = np.array([[tokens[position]]], np.int64)
        logits, *present = run([ids, np.array([[position]], np.int64), mask, *cache])
        for slot, new in zip(cache, present, strict=True):
            slot[:, :, position] = new[:, :, max_past]
        if position >= len(prompt) - 1:
            tokens.append(int(np.argmax(logits[0, -1])))
    return tokens


def export(found: Decoder, path: str, max_seq: int = 64, max_past: int = 96) -> None:
    """``torch.export`` of :class:`WithCache` (batch, sequence and past dynamic) to ``path``."""
    ids = torch.ones(2, 3, dtype=torch.int64)
    dtype = next(found.model.parameters()).dtype  # the cache has the weights' type
    shape = (2, found.kv_heads, 4, found.head_dim)
    past = tuple(torch.zeros(shape, dtype=dtype) for _ in range(2 * found.layers))
    batch = torch.export.Dim("batch", max=8)
    seq, length = torch.export.Dim("seq", max=max_seq), torch.export.Dim("past", max=max_past)
    dynamic = ({0: batch, 1: seq}, tuple({0: batch, 2: length} for _ in past))
    program = torch.export.export(WithCache(found), (ids, *past), dynamic_shapes=dynamic)
    torch.export.save(program, path)


def generate(found: Decoder, prompt: list[int], steps: int) -> list[int]:
    """torch's greedy ``generate``: the prompt and ``steps`` new tokens."""
    found.model.generation_config.eos_token_id = None  # argmax every step, as the test does
    found.model.generation_config.pad_token_id = 0
    with torch.no_grad():
        ids = torch.tensor([prompt])
        return found.model.generate(ids, max_new_tokens=steps, do_sample=False)[0].tolist()
