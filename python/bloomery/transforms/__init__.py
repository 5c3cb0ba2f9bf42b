"""The transforms a mapping chains: their types (types.py), the registry and the chain's type-check
(chain.py), and the lowerings that need more than a line (temporal.py, decimal_text.py)."""
