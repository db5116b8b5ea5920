"""Policy-change impact: what a change from one policy set (base) to another (head) does to a corpus of
admission requests -- a cluster dump (every object a CREATE, as `batch` admits it) or a replayed audit log.

No Django here; `admission-playground impact`, the web app's compare page, its REST API and MCP tool share
it. The interface (stable: the web layer builds on it):

```python
from evaluator.batch import impact

items = impact.object_items(objects)                    # a dump: each object a CREATE
log = impact.AuditLog(open("audit.log", "rb"), "audit.log")  # or an audit log, streamed
items = iter(log)                                       # replay items (items.py), read lazily
report = impact.run_impact(base_docs, head_docs, items, jobs=2, on_progress=print)
report.source = log.stats()                             # what the reader counted, skipped, could not read
report.input_errors = log.errors                        # its malformed lines, located (warnings)
data = report.as_dict()                                 # JSON, described in SCHEMA.md in this folder
text = impact.render(report, "markdown")                # text | json | markdown | junit | csv
gate = impact.gate(report, "newlyDenied")                # 1 when something is newly denied, else 0

chunk = impact.compare_chunk(base_docs, head_docs, items_of_one_chunk)  # one worker's share, plain JSON
report.add_chunk(chunk)                                 # merge chunks computed anywhere (Celery), exact
full = impact.explain(base_docs, head_docs, item["request"])  # both full simulate results, for a drill-down
```

For a dump, add its Namespace objects to both sets first, as `batch` does
(`evaluator.batch.with_namespaces(documents, objects)`): their labels are what namespaceSelectors read.
`run_impact` keeps `max_changes` (20,000) changed requests, the lowest indexes; the summary counts all.

The modules, each with one job: items.py (a replay item, a dump's items, a request's identity),
compare.py (both answers of one request and what changed), summary.py (`ImpactSummary`, mergeable),
run.py (`run_impact` over a streamed, bounded local pool; `ImpactReport`), audit_stream.py (an audit log's
events, whatever its layout), audit_log.py (`AuditLog`: those events as replay items), outputs.py (the
renderings), sample_log.py (a seeded audit log and policy change: tests, bench, a page's sample).
"""

from evaluator.batch.impact.audit_log import AuditLog
from evaluator.batch.impact.compare import CATEGORIES, Change, Side, compare, compare_chunk, explain, side_of
from evaluator.batch.impact.items import Item, identity, object_items
from evaluator.batch.impact.outputs import FAIL_ON, FORMATS, gate, render
from evaluator.batch.impact.run import MAX_CHANGES, SCHEMA_VERSION, ImpactReport, run_impact
from evaluator.batch.impact.summary import ImpactSummary

__all__ = [
    "AuditLog",
    "CATEGORIES",
    "Change",
    "Side",
    "compare",
    "compare_chunk",
    "explain",
    "side_of",
    "Item",
    "identity",
    "object_items",
    "FORMATS",
    "FAIL_ON",
    "gate",
    "render",
    "MAX_CHANGES",
    "SCHEMA_VERSION",
    "ImpactReport",
    "run_impact",
    "ImpactSummary",
]
