"""Training-ready exports: masked spans, downstream labels, redaction (docs/export-format.md).

    rule.py     MaskRule and mask_group: raw Surprise Masking of one group (pure, numpy)
    masked.py   the export's wiring: records -> scores -> masks per group -> output records
    labels.py   downstream input_ids / attention_mask / labels with -100 where masked
    writer.py   atomic, resumable JSONL output and the reject file
    job.py      one export run: source -> records -> writer
    coverage.py target coverage and collateral masking against labelled spans

Importing this package never imports torch.
"""
