"""MXNet 1.9.1's AMP operator lists (float16 and bfloat16)."""
from . import symbol_bf16, symbol_fp16
