"""batch/v1 defaulting (pkg/apis/batch/v1/defaults.go): Job and CronJob, then their pod templates.

Job's backoffLimit is MaxInt32 with a backoffLimitPerIndex, else 6; podReplacementPolicy follows the JobPodReplacementPolicy gate (on by default since 1.29): Failed when
a podFailurePolicy is set, else TerminatingOrFailed. A CronJob's jobTemplate gets the pod template defaults
but not SetDefaults_Job (the generated defaulter does not call it there)."""

from __future__ import annotations

from evaluator.k8s.defaulting.core import pod_template_spec
from evaluator.k8s.defaulting.fields import (
    POINTER,
    STRING,
    Defaults,
    Field,
    Recorder,
    child,
    ensure,
    is_empty,
    items,
    spec_defaulter,
)

MAX_INT32 = 2**31 - 1


def _backoff_limit(backoff_limit_per_index: object) -> int:
    return MAX_INT32 if backoff_limit_per_index is not None else 6


def _pod_replacement_policy(pod_failure_policy: object) -> str:
    return "Failed" if pod_failure_policy is not None else "TerminatingOrFailed"


_JOB_LIMITS = Defaults(
    Field("parallelism", 1, POINTER),
    Field("backoffLimit", None, POINTER, make=_backoff_limit, source="backoffLimitPerIndex"),
)
_JOB_MODES = Defaults(
    Field("completionMode", "NonIndexed", POINTER),
    Field("suspend", False, POINTER),
    Field("podReplacementPolicy", None, POINTER, make=_pod_replacement_policy, source="podFailurePolicy"),
    Field("manualSelector", False, POINTER),
)
_CONDITION_PATTERN = Defaults(Field("status", "True", STRING))


def job_spec_fields(obj: dict, spec: dict, rec: Recorder) -> None:
    if spec.get("completions") is None and spec.get("parallelism") is None:
        rec.set(spec, "completions", 1, "spec.")
        rec.set(spec, "parallelism", 1, "spec.")
    _JOB_LIMITS.apply(spec, "spec.", rec)
    template = child(spec, "template")
    labels = child(child(template, "metadata") or {}, "labels") if template is not None else None
    if labels is not None:
        metadata = ensure(obj, "metadata", "", rec)
        if metadata is not None and is_empty(metadata.get("labels")):
            rec.set(metadata, "labels", dict(labels), "metadata.")
    _JOB_MODES.apply(spec, "spec.", rec)


def pod_failure_policy(spec: dict, prefix: str, rec: Recorder) -> None:
    """SetDefaults_PodFailurePolicyOnPodConditionsPattern: a condition pattern's status defaults to True."""
    policy = child(spec, "podFailurePolicy")
    if policy is None:
        return
    for i, rule in items(policy, "rules"):
        for j, pattern in items(rule, "onPodConditions"):
            _CONDITION_PATTERN.apply(pattern, f"{prefix}podFailurePolicy.rules[{i}].onPodConditions[{j}].", rec)


@spec_defaulter
def job(obj: dict, spec: dict, rec: Recorder) -> None:
    job_spec_fields(obj, spec, rec)
    pod_failure_policy(spec, "spec.", rec)
    pod_template_spec(spec, "spec.", rec)


_CRON_JOB = Defaults(
    Field("concurrencyPolicy", "Allow", STRING),
    Field("suspend", False, POINTER),
    Field("successfulJobsHistoryLimit", 3, POINTER),
    Field("failedJobsHistoryLimit", 1, POINTER),
)


@spec_defaulter
def cron_job(obj: dict, spec: dict, rec: Recorder) -> None:
    _CRON_JOB.apply(spec, "spec.", rec)
    job_template = ensure(spec, "jobTemplate", "spec.", rec)
    job_spec = ensure(job_template, "spec", "spec.jobTemplate.", rec) if job_template is not None else None
    if job_spec is not None:
        pod_failure_policy(job_spec, "spec.jobTemplate.spec.", rec)
        pod_template_spec(job_spec, "spec.jobTemplate.spec.", rec)


DEFAULTERS = {"Job": job, "CronJob": cron_job}
