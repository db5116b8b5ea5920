"""Batch simulation: what a policy set would do to every object of a cluster, on as many cores as given.

No Django here; the CLI (`admission-playground batch`) and the web app's batch jobs (Celery tasks or a local
process pool) share it. The pieces, each in its own module:

- `read_objects(data, filename)` (reading.py): objects and located errors from YAML, JSON, `kubectl get -A
  -o yaml` Lists and `.tar.gz` archives of manifests, bounded against hostile input.
- `chunks(objects, size)`, `run_chunk(documents, objects, start=, kubernetes_version=)` (engine.py): the
  batch path, one small JSON-serialisable `Row` per object (rows.py), the policy set compiled once per
  process (cached by content hash); `explain(documents, obj, index=)`: one object's full result;
  `with_namespaces(documents, objects)`: the documents with the objects' Namespaces (their labels).
- `Summary` (summary.py): totals, per policy / namespace / kind; `from_rows`, `merge`, `as_dict`, `from_dict`.
- `write_policy_reports(rows, documents, out)`, `policy_reports(rows, documents)`, `csv_text(rows)`
  (exports.py): Kyverno PolicyReports (one per resource, each under `REPORT_LIMIT`, written one by one) and CSV.
- `run_parallel(documents, objects, jobs=, chunk_size=, on_progress=, cancelled=)` (parallel.py): a local
  process pool that re-runs the chunks of a worker that died, and stops when `cancelled()` says so.
- `evaluator.batch.cluster.list_objects(kubeconfig, context=)`: the objects of a live cluster the policies
  match, read-only (needs the `kubernetes` client; imported only there).
- `evaluator.batch.impact` (a subpackage, imported on its own): two policy sets over a dump or a replayed
  audit log, and what the change does (see its docstring).

See README.md in this folder for the Row and Summary shapes.
"""

from evaluator.batch.engine import chunks, compiled, explain, request_for, run_chunk, with_namespaces
from evaluator.batch.exports import REPORT_LIMIT, csv_text, policy_reports, write_policy_reports
from evaluator.batch.parallel import Cancelled, ChunkFailed, run_parallel
from evaluator.batch.reading import read_objects
from evaluator.batch.rows import OUTCOMES, Outcome, Row, label, policy_key, row_of
from evaluator.batch.summary import Summary

__all__ = [
    "read_objects",
    "chunks",
    "run_chunk",
    "compiled",
    "explain",
    "request_for",
    "with_namespaces",
    "Row",
    "Outcome",
    "OUTCOMES",
    "row_of",
    "label",
    "policy_key",
    "Summary",
    "policy_reports",
    "write_policy_reports",
    "REPORT_LIMIT",
    "csv_text",
    "run_parallel",
    "ChunkFailed",
    "Cancelled",
]
