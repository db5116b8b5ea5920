"""batch/v1 defaulting (pkg/apis/batch/v1/defaults.go): Job and CronJob, then their pod templates.

Job's backoffLimit is MaxInt32 with a backoffLimitPerIndex, else 6; podReplacementPolicy follows the JobPodReplacementPolicy gate (on by default since 1.29): Failed when
a podFailurePolicy is set, else TerminatingOrFailed. A CronJob's jobTemplate gets the pod template defaults
but not SetDefaults_Job (the generated defaulter does not call it there)."""

from __future__ import annotations

from evaluator.k8s.defaulting.core import pod_template_spec
from evaluator.k8s.defaulting.fields import Recorder, child, default_pointer, default_string, ensure, is_empty, items

MAX_INT32 = 2**31 - 1


def job_spec_fields(obj: dict, spec: dict, rec: Recorder) -> None:
    if spec.get("completions") is None and spec.get("parallelism") is None:
        rec.set(spec, "completions", 1, "spec.")
        rec.set(spec, "parallelism", 1, "spec.")
    default_pointer(spec, "parallelism", 1, "spec.", rec)
    if spec.get("backoffLimit") is None:
        rec.set(spec, "backoffLimit", MAX_INT32 if spec.get("backoffLimitPerIndex") is not None else 6, "spec.")
    template = child(spec, "template")
    labels = child(child(template, "metadata") or {}, "labels") if template is not None else None
    if labels is not None:
        metadata = ensure(obj, "metadata", "", rec)
        if metadata is not None and is_empty(metadata.get("labels")):
            rec.set(metadata, "labels", dict(labels), "metadata.")
    default_pointer(spec, "completionMode", "NonIndexed", "spec.", rec)
    default_pointer(spec, "suspend", False, "spec.", rec)
    if spec.get("podReplacementPolicy") is None:
        policy = "Failed" if spec.get("podFailurePolicy") is not None else "TerminatingOrFailed"
        rec.set(spec, "podReplacementPolicy", policy, "spec.")
    default_pointer(spec, "manualSelector", False, "spec.", rec)


def pod_failure_policy(spec: dict, prefix: str, rec: Recorder) -> None:
    """SetDefaults_PodFailurePolicyOnPodConditionsPattern: a condition pattern's status defaults to True."""
    policy = child(spec, "podFailurePolicy")
    if policy is None:
        return
    for i, rule in items(policy, "rules"):
        for j, pattern in items(rule, "onPodConditions"):
            default_string(pattern, "status", "True", f"{prefix}podFailurePolicy.rules[{i}].onPodConditions[{j}].", rec)


def job(obj: dict, rec: Recorder) -> None:
    spec = ensure(obj, "spec", "", rec)
    if spec is None:
        return
    job_spec_fields(obj, spec, rec)
    pod_failure_policy(spec, "spec.", rec)
    pod_template_spec(spec, "spec.", rec)


def cron_job(obj: dict, rec: Recorder) -> None:
    spec = ensure(obj, "spec", "", rec)
    if spec is None:
        return
    default_string(spec, "concurrencyPolicy", "Allow", "spec.", rec)
    default_pointer(spec, "suspend", False, "spec.", rec)
    default_pointer(spec, "successfulJobsHistoryLimit", 3, "spec.", rec)
    default_pointer(spec, "failedJobsHistoryLimit", 1, "spec.", rec)
    job_template = ensure(spec, "jobTemplate", "spec.", rec)
    job_spec = ensure(job_template, "spec", "spec.jobTemplate.", rec) if job_template is not None else None
    if job_spec is not None:
        pod_failure_policy(job_spec, "spec.jobTemplate.spec.", rec)
        pod_template_spec(job_spec, "spec.jobTemplate.spec.", rec)


DEFAULTERS = {"Job": job, "CronJob": cron_job}
