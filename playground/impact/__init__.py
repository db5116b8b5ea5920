"""Policy-change impact on the page and the API (issue 35): base vs head policy sets over one corpus (a cluster
dump or an audit log), run as a job on the batch workers.

versions (a project's version history: the snapshots taken of it, numbered), sides (a project, a version of
it, or another project, as the documents a side runs), corpus (an upload to the items a job replays), audit (an
audit log's replay items, by the engine's reader), jobs (create an impact job: a BatchJob of kind "impact",
chunked and run by playground/batch's runner, whose engine.compute runs evaluator.batch.impact.compare_chunk),
results (report, changed requests, exports), api, urls and views (thin). The engine side is
evaluator/batch/impact.
"""
