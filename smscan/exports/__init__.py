"""Training-ready exports: masked spans, downstream labels, redaction (docs/export-format.md).

    masked.py   the export's chain (smscan/judge/stages.py): records -> scores -> masks per group
    value-aware masking (the default: values whole, their repeats) is smscan/judge/values.py and
    value_units.py; smscan/detectors/letter_pairs.py says whether a run of letters reads as a word
    defaults.py the default export's credential findings
    layout.py   how a masked record is written (spans per text, redaction, labels)
    labels.py   downstream input_ids / attention_mask / labels with -100 where masked
    writer.py   atomic, resumable JSONL output and the reject file
    job.py      one export run: source -> records -> writer
    ray_engine.py, ray_cluster.py  the same export on Ray Data (ray_read.py: the read task,
                ray_masker.py: the actor)

    operating_points.py  surprise calibration (to move to calibration/ once open work on it lands):
                         surprise_calibration.py the threshold search, label_groups.py the folds
    value_points.py      value-aware calibration: curve, cross-validated spread, landing

The raw masking rule is ``smscan/engine/masking.py`` and mask coverage is ``smscan/exports/coverage.py``
(``rule.py`` and ``coverage.py`` here only re-export them for old imports).

Importing this package never imports torch.
"""
