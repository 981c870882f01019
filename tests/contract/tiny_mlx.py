"""A tiny llama-architecture model whose greedy output is programmed into its weights, saved
the way real checkpoints are (config.json, model.safetensors, tokenizer.json,
tokenizer_config.json with a chat template) so mlx-lm's normal loader reads it.

How the program works: every transformer layer's output projections are zero, so the residual
stream at the last position is the embedding of the last token. Embeddings are one-hot, and
lm_head maps token A's one-hot to a large logit for the token that must follow A. The chat
template ends with the special token <|assistant|>, so the reply is the chain
<|assistant|> -> piece 1 -> piece 2 -> ... -> </s>. The remaining weights are random."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

CHAT_TEMPLATE = (
    "{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}</s>{% endfor %}"
    "{% if add_generation_prompt %}<|assistant|>{% endif %}"
)
SPECIALS = ["<unk>", "</s>", "<|system|>", "<|user|>", "<|assistant|>", "<|tool|>"]


def split_pieces(reply: str, pieces: int) -> list[str]:
    """Cut the reply into about `pieces` non-empty, pairwise different tokens (a token can have
    only one successor in this model, so no piece may repeat)."""
    if not reply:
        return []
    size = max(1, -(-len(reply) // pieces))
    out: list[str] = []
    current = ""
    for ch in reply:
        current += ch
        if len(current) >= size and current not in out and current not in SPECIALS:
            out.append(current)
            current = ""
    if current:
        if out:
            out[-1] += current
        else:
            out.append(current)
    if len(set(out)) != len(out):
        raise ValueError(f"cannot cut {reply!r} into distinct pieces")
    return out


def build(folder: Path, reply: str, *, pieces: int = 4, eos: bool = True, seed: int = 0) -> Path:
    """Write a model that answers every prompt with `reply` (then </s>, unless eos is False:
    then it repeats its last piece until max_tokens)."""
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers

    folder.mkdir(parents=True, exist_ok=True)
    chain = split_pieces(reply, pieces)
    vocab = {tok: i for i, tok in enumerate(SPECIALS)}
    tokenizer = Tokenizer(models.WordLevel(vocab=dict(vocab), unk_token="<unk>"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.decoder = decoders.Fuse()
    tokenizer.add_special_tokens([AddedToken(t, special=True, normalized=False) for t in SPECIALS])
    tokenizer.add_tokens([AddedToken(p, special=False, normalized=False) for p in chain])
    tokenizer.save(str(folder / "tokenizer.json"))
    ids = [tokenizer.token_to_id(p) for p in chain]
    size = tokenizer.get_vocab_size()

    hidden = max(16, ((size + 7) // 8) * 8)
    inter, heads = 32, 2
    rng = np.random.default_rng(seed)

    def rand(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * 0.02).astype(np.float32)

    embed = np.zeros((size, hidden), np.float32)
    embed[np.arange(size), np.arange(size)] = 1.0
    lm_head = rand(size, hidden)
    order = [vocab["<|assistant|>"], *ids]
    follow = ids + ([vocab["</s>"]] if eos else [ids[-1] if ids else vocab["</s>"]])
    for a, b in zip(order, follow):
        lm_head[b, a] = 50.0
    weights = {
        "model.embed_tokens.weight": embed,
        "lm_head.weight": lm_head,
        "model.norm.weight": np.ones(hidden, np.float32),
        "model.layers.0.input_layernorm.weight": np.ones(hidden, np.float32),
        "model.layers.0.post_attention_layernorm.weight": np.ones(hidden, np.float32),
        "model.layers.0.self_attn.q_proj.weight": rand(hidden, hidden),
        "model.layers.0.self_attn.k_proj.weight": rand(hidden, hidden),
        "model.layers.0.self_attn.v_proj.weight": rand(hidden, hidden),
        "model.layers.0.self_attn.o_proj.weight": np.zeros((hidden, hidden), np.float32),
        "model.layers.0.mlp.gate_proj.weight": rand(inter, hidden),
        "model.layers.0.mlp.up_proj.weight": rand(inter, hidden),
        "model.layers.0.mlp.down_proj.weight": np.zeros((hidden, inter), np.float32),
    }
    from safetensors.numpy import save_file

    save_file(weights, str(folder / "model.safetensors"), metadata={"format": "mlx"})
    (folder / "config.json").write_text(json.dumps({
        "model_type": "llama", "architectures": ["LlamaForCausalLM"], "hidden_size": hidden,
        "num_hidden_layers": 1, "intermediate_size": inter, "num_attention_heads": heads,
        "num_key_value_heads": heads, "rms_norm_eps": 1e-5, "vocab_size": size,
        "tie_word_embeddings": False, "max_position_embeddings": 4096, "rope_theta": 10000.0,
        "eos_token_id": vocab["</s>"], "bos_token_id": None,
    }))
    (folder / "tokenizer_config.json").write_text(json.dumps({
        "tokenizer_class": "PreTrainedTokenizerFast", "chat_template": CHAT_TEMPLATE,
        "eos_token": "</s>", "unk_token": "<unk>", "bos_token": None, "model_max_length": 4096,
    }))
    return folder
