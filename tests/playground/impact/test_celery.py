"""An impact job on real Celery workers (Redis broker, `celery -A playground.celery_app worker` subprocesses on
the test database), as a batch job runs there: the chunks of replay items go through both policy sets in the
workers and the job ends with the change's exact counts. In `make test-postgres` (PostgreSQL + Redis)."""

from __future__ import annotations

import pytest

from playground.batch import jobs as batch_jobs
from playground.batch.models import BatchJob
from playground.impact import jobs
from playground.services import document_service, project_service, snapshot_service
from tests.playground.batch.test_celery import wait_for_end, workers  # noqa: F401 (a fixture)
from tests.playground.impact.corpora import audit_log, limit_policy, newly_denied, project_body

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.django_db(transaction=True)]

REPLICAS = [2, 4, 9, 5, 3, 1, 4, 7, 2, 5] * 21  # 210 requests


def test_an_audit_log_compared_on_celery_workers(workers, settings):  # noqa: F811
    settings.PLAYGROUND_BATCH_CHUNK_SIZE = 25
    state, token = project_service.create_project(**{k: project_body()[k] for k in ("title", "documents")})
    snapshot_service.create_snapshot(project_id=state["id"])
    document = state["documents"][0]
    document_service.update_item(
        project_id=state["id"], token=token, target="document", item_id=document["id"], text=limit_policy(3)
    )
    workers.start()
    job, job_token = jobs.create(
        {"project": state["id"], "version": 1}, {"project": state["id"]}, None, [("audit.log", audit_log(REPLICAS))]
    )
    wait_for_end(job, job_token, workers)
    stored = BatchJob.objects.get(id=job["id"])
    assert stored.kind == "impact" and stored.done == len(REPLICAS)
    assert stored.summary["newlyDenied"] == stored.denied == newly_denied(REPLICAS)
    assert set(stored.summary["users"]) == {"alice", "bob"}
    assert set(stored.chunks.values_list("attempts", flat=True)) == {1}
    assert "playground.batch.run_chunk" in workers.output()
    assert batch_jobs.status(job["id"], job_token)["status"] == "done"
