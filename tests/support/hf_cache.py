"""Hugging Face decoders with their key/value cache, exported with ``torch.export`` as a user
does to deploy a prefill and a decode model (issue 32): tiny seeded configs (vocabulary 128,
hidden 32, 2 layers, 4 heads) of Llama, Qwen2 and Mistral (2 key/value heads; Mistral with a
sliding window of 8), Phi (partial rotary) and GPT-2, random weights.

The exported module reads ``input_ids`` and the cache as tensors (``past_{2i}`` the keys and
``past_{2i+1}`` the values of layer ``i``, ``[batch, kv_heads, past, head_dim]``) and returns
the logits and the updated cache; batch, sequence and past length are dynamic."""

from __future__ import annotations

from dataclasses import dataclass

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
