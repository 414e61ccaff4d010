#!/usr/bin/env bash
# Device run for issue 30 (not yet run: no GPU was lent to the session that wrote it).
#
#     OUT=/tmp/gpu-export bash bench/gpu_export.sh          # about 10 minutes on one H100
#
# Needs: the repository's venv with torch (CUDA build), smscan[ray]; the default reference model in
# the smscan cache (`smscan model pull` on a machine with network, then copy ~/.cache/smscan), or
# SMSCAN_MODEL naming a local folder with its safetensors weights.
# Measures, on code of the installed Python packages (one export group per package):
#   1. `smscan export --device cuda --dtype bf16` (transformers runtime): wall, tokens/s;
#   2. the same records on the CPU path, fp32, `--deterministic`, on a 64-record subset: masks agree
#      within what bf16 moves (windows flipped near the threshold), reported as character agreement;
#   3. `--engine ray --workers 1 --gpus-per-worker 1`: wall, tokens/s;
#   4. `python -m bench.extraction --device cuda --scale 4` (the extraction benchmark, larger).
# Everything lands in $OUT (summary.json and the logs).
set -euo pipefail
OUT=${OUT:-/tmp/gpu-export}
MB=${MB:-2}
mkdir -p "$OUT"
export SMSCAN_SCORE_CACHE="$OUT/scores"

python - "$OUT" "$MB" <<'EOF'
import json, site, sys
from pathlib import Path
out, budget = Path(sys.argv[1]), float(sys.argv[2]) * 1e6
roots = [Path(p) for p in site.getsitepackages()]
written = 0
with (out / "in.jsonl").open("w", encoding="utf-8") as handle, (out / "subset.jsonl").open("w", encoding="utf-8") as subset:
    count = 0
    for root in roots:
        for package in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.endswith("-info")):
            for path in sorted(package.rglob("*.py"))[:40]:
                text = path.read_text(encoding="utf-8", errors="replace")[:8000]
                line = json.dumps({"text": text, "group": package.name, "path": str(path.relative_to(root))}) + "\n"
                handle.write(line)
                if count < 64:
                    subset.write(line)
                count += 1
                written += len(text)
            if written > budget:
                break
        if written > budget:
            break
print(f"input: {count} records, {written / 1e6:.1f} MB")
EOF

timed() {  # name, then the command: wall seconds into $OUT/name.seconds
    local name=$1; shift
    local start; start=$(date +%s.%N)
    "$@" > "$OUT/$name.log" 2>&1 || echo "exit $? (see $OUT/$name.log)" >> "$OUT/$name.log"
    python -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 1))" "$start" "$(date +%s.%N)" > "$OUT/$name.seconds"
}

timed cuda smscan export "$OUT/in.jsonl" -o "$OUT/cuda.jsonl" --group-by group --device cuda --dtype bf16 --no-cache
timed cuda-subset smscan export "$OUT/subset.jsonl" -o "$OUT/cuda-subset.jsonl" --group-by group --device cuda --dtype bf16 --no-cache
timed cpu-subset smscan export "$OUT/subset.jsonl" -o "$OUT/cpu-subset.jsonl" --group-by group --device cpu --dtype fp32 --deterministic --no-cache
timed ray smscan export "$OUT/in.jsonl" -o "$OUT/ray.jsonl" --group-by group --engine ray --workers 1 --gpus-per-worker 1 --device cuda --dtype bf16 --no-cache
timed extraction python -m bench.extraction --device cuda --scale 4 --out "$OUT/extraction.json" --work "$OUT/extraction"

python - "$OUT" <<'EOF'
import json, sys
from pathlib import Path
out = Path(sys.argv[1])

def records(name):
    path = out / f"{name}.jsonl"
    return [json.loads(l) for l in path.read_text().splitlines()] if path.exists() else []

def chars(rows):
    return sum(len(r["text"]) for r in rows)

def masked(r):
    s = set()
    for a, b, *_ in r["smscan"]["masked_spans"]:
        s.update(range(a, b))
    return s

summary = {}
for name in ("cuda", "ray", "cuda-subset", "cpu-subset"):
    rows, seconds = records(name), float((out / f"{name}.seconds").read_text())
    summary[name] = {"records": len(rows), "chars": chars(rows), "seconds": seconds,
                     "chars_per_s": round(chars(rows) / seconds, 1) if rows else None}
gpu, cpu = records("cuda-subset"), records("cpu-subset")
if gpu and cpu:
    differ = sum(len(masked(a) ^ masked(b)) for a, b in zip(gpu, cpu))
    summary["bf16_vs_fp32"] = {"chars": chars(cpu), "chars_masked_differently": differ,
                               "share": round(differ / max(chars(cpu), 1), 5)}
(out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
print(json.dumps(summary, indent=1))
EOF
