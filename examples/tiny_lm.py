"""A small Transformer language model, defined here (no downloads), and the build() contract that
`measurefirst step` uses: build() returns model, optimizer, batches (+ optional loss_fn, micro_batch,
seq_len).

    measurefirst step examples/tiny_lm.py:build --variants eager --dtypes fp32,bf16
    python examples/tiny_lm.py
"""

import torch
import torch.nn as nn

VOCAB, D_MODEL, N_HEADS, N_LAYERS, SEQ_LEN, MICRO_BATCH = 512, 128, 4, 2, 64, 8


class TinyLM(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D_MODEL)
        self.pos = nn.Parameter(torch.zeros(SEQ_LEN, D_MODEL))
        layer = nn.TransformerEncoderLayer(D_MODEL, N_HEADS, 4 * D_MODEL, dropout=0.0, batch_first=True,
                                           norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, N_LAYERS, enable_nested_tensor=False)
        self.head = nn.Linear(D_MODEL, VOCAB)
        self.register_buffer("mask", nn.Transformer.generate_square_subsequent_mask(SEQ_LEN), persistent=False)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        h = self.embed(tokens) + self.pos[: tokens.shape[1]]
        h = self.blocks(h, mask=self.mask[: tokens.shape[1], : tokens.shape[1]], is_causal=True)
        return self.head(h)


def batches(n: int = 16, seed: int = 0):
    """Synthetic token batches: (inputs, next-token targets)."""
    g = torch.Generator().manual_seed(seed)
    data = [torch.randint(0, VOCAB, (MICRO_BATCH, SEQ_LEN + 1), generator=g) for _ in range(n)]
    return [(d[:, :-1], d[:, 1:]) for d in data]


def build():
    torch.manual_seed(0)
    model = TinyLM()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    return {"model": model, "optimizer": optimizer, "batches": batches(), "micro_batch": MICRO_BATCH,
            "seq_len": SEQ_LEN}


if __name__ == "__main__":
    import measurefirst
    from measurefirst import benchmark_step

    parts = build()
    result = benchmark_step(parts["model"], parts["optimizer"], parts["batches"], device="cpu", steps=5, warmup=2,
                            micro_batch=MICRO_BATCH, seq_len=SEQ_LEN)
    print(result)
    print(f"tokens/s per device: {result.throughput.tokens_per_s_device:.0f}; "
          f"measurefirst {measurefirst.__version__}")
