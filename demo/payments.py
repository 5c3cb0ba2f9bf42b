"""Dirty payments for the demo: the provider's export, amounts in cents."""
COLUMNS = ["psp_ref", "merchant_ref", "method", "amount_cents", "ts", "_load_id", "_ingested_at", "_source_row_id"]
ROWS = [
    ("PAY-1", "O1", "VISA", "2500", "2023-05-01T10:05:00", "l1", "2024-01-08 00:00:00", "pay-1"),
    ("PAY-2", "O2", "paypal", "1999", "2023-05-02T10:05:00", "l1", "2024-01-08 00:00:00", "pay-2"),
    ("PAY-3", "O2", "klarna", "1999", "2023-05-02T11:00:00", "l1", "2024-01-08 00:00:00", "pay-3"),     # unmapped method
    ("PAY-4", "O404", "card", "500", "2023-05-04T10:05:00", "l1", "2024-01-08 00:00:00", "pay-4"),      # unknown order: flagged
    ("PAY-5", "O7", "mastercard", "-100", "2023-05-07T10:05:00", "l1", "2024-01-08 00:00:00", "pay-5"), # negative
    ("PAY-6", "O9", "card", "12,00", "2023-05-09T10:05:00", "l1", "2024-01-08 00:00:00", "pay-6"),      # comma in cents
    ("PAY-7", "O1", "card", "2500", "2023-05-01T10:05:00", "l1", "2024-01-08 00:00:00", "pay-7a"),      # delivered twice
    ("PAY-7", "O1", "card", "2500", "2023-05-01T10:05:00", "l2", "2024-01-09 00:00:00", "pay-7b"),
    ("PAY-8", "O9", "paypal", "4200", "not a time", "l1", "2024-01-08 00:00:00", "pay-8"),              # bad timestamp
]
