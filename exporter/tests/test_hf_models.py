"""Hugging Face transformers models, built from tiny configs, trained on their own ``labels=``
loss: the capture on ``meta`` equals the pair a real CPU ``torch.compile`` step partitions.

Each model's loss goes through ``F.cross_entropy`` (Llama, GPT-2, BERT and Mixtral through
``transformers.loss``, T5 through ``nn.CrossEntropyLoss``), whose backward a ``meta`` capture
lost before _meta_autograd.py; T5 also needs ``torch.where`` with a scalar (its relative
attention bias). No weights are downloaded: the models come from configs with random weights,
and the hub is kept offline.
"""

from __future__ import annotations

import os

os.environ["HF_HUB_OFFLINE"] = "1"  # before transformers is imported: it reads them once
os.environ["TRANSFORMERS_OFFLINE"] = "1"

import pytest  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import transformers  # noqa: E402  (a missing transformers fails the run: scripts/setup.sh installs it)

import real_run  # noqa: E402

VOCAB, BATCH, SEQ = 96, 2, 8
_SMALL = dict(vocab_size=VOCAB, use_cache=False)
_DECODER = dict(hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=4,
                num_key_value_heads=2, max_position_embeddings=32, **_SMALL)


def _config(name: str) -> tuple[type, transformers.PretrainedConfig]:
    if name == "llama":
        return transformers.LlamaForCausalLM, transformers.LlamaConfig(**_DECODER)
    if name == "mixtral":
        return transformers.MixtralForCausalLM, transformers.MixtralConfig(num_local_experts=4, num_experts_per_tok=2,
                                                                           **_DECODER)
    if name == "gpt2":
        return transformers.GPT2LMHeadModel, transformers.GPT2Config(
            n_positions=32, n_embd=32, n_layer=1, n_head=4, bos_token_id=0, eos_token_id=0, **_SMALL)
    if name == "bert":
        return transformers.BertForMaskedLM, transformers.BertConfig(
            hidden_size=32, num_hidden_layers=1, num_attention_heads=4, intermediate_size=64,
            max_position_embeddings=32, **_SMALL)
    if name == "t5":
        return transformers.T5ForConditionalGeneration, transformers.T5Config(
            d_model=32, d_kv=8, d_ff=64, num_layers=1, num_decoder_layers=1, num_heads=4,
            decoder_start_token_id=0, pad_token_id=0, **_SMALL)
    raise KeyError(name)


class LabelsLoss(nn.Module):
    """``model(input_ids=ids, labels=labels).loss``, the step a Trainer runs."""

    def __init__(self, model: nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, ids: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=ids, labels=labels).loss


def build(name: str, device: str) -> tuple[nn.Module, tuple[torch.Tensor, torch.Tensor]]:
    cls, config = _config(name)
    torch.manual_seed(0)
    with torch.device(device):
        model = cls(config)
        # GPT2LMHeadModel's name maps to no loss type: transformers would log a warning from
        # inside the compiled code (a graph break under fullgraph); it is ForCausalLM's loss.
        model.loss_type = "ForCausalLM" if name == "gpt2" else model.loss_type
        ids = torch.randint(0, VOCAB, (BATCH, SEQ))
        labels = ids.clone()
        labels[:, :2] = -100  # ignored positions, as padding gives
    return LabelsLoss(model).train(), (ids, labels)


def _parameters_with_gradient(pair: real_run.Pair) -> int:
    out = next(iter(pair.backward.graph.find_nodes(op="output")))
    return sum(isinstance(a, torch.fx.Node) for a in out.args[0])


# T5's _shift_right writes its start token with ``labels[..., 0] = id``: PyTorch's C++ indexing
# makes the int a constant CPU tensor on a CPU tensor (folded into a ``full``) and a traced
# ``scalar_tensor`` expanded to the row on any other device, meta and CUDA alike
# (docs/exporter.md, "Differences from a real CPU run"). Same peak, same saved values.
KNOWN = {"t5": ["forward ops: real has {}, capture has {'aten.expand.default': 1, 'aten.scalar_tensor.default': 1}"]}


@pytest.mark.parametrize("name", ["llama", "gpt2", "bert", "t5", "mixtral"])
def test_meta_capture_equals_real_cpu_run(name):
    real = real_run.real_cpu_pair(*build(name, "cpu"))
    captured = real_run.meta_pair(*build(name, "meta"), target="cpu")
    assert real_run.differences(real, captured) == KNOWN.get(name, [])
    model, _ = build(name, "meta")
    # Every trainable parameter gets its gradient (tied weights are one parameter).
    assert _parameters_with_gradient(captured) == len(list(model.parameters()))
    assert real_run.peak(real) > 0
