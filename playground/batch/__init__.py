"""Batch simulation jobs (issue 22): a project's policies over a cluster dump, in chunks, on workers.

models (job and chunk state in the database), inputs (upload and paste to objects), jobs (create, status,
cancel), runner (claim a chunk under a lease, run it, store its rows; Celery or a local process pool),
progress (announce a job's changes to its sockets) and consumer (ws/batch/<id>/, the page's live bar),
results (summary, affected objects, drill-down, exports), api and views (thin). The engine side is
evaluator/batch.
"""
