"""Request and response shapes of the API (also the source of the OpenAPI schema), in one module.

The body shapes are the edge validator of both transports (api/strict.py's `validated()`; the WebSocket
messages of api/messages.py reuse them), so a service only gets validated values. What needs a service's
knowledge is checked there: an expected outcome (evaluator/expectations.py), the items of a project body
(a Kubernetes object may stand in for {name, text}), the Kubernetes version, the size limits.
"""

from django.conf import settings
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from playground.api import strict

from evaluator.cluster.selector import name_problem, namespace_problem, selector_problem
from evaluator.expectations import OUTCOMES


class CELRequestSerializer(serializers.Serializer):
    expression = strict.Text()
    variables = strict.Object(
        required=False, help_text="Variables as a JSON object. Give this or variables_text, not both."
    )
    variables_text = strict.Text(
        required=False,
        help_text="Variables as YAML or JSON text, parsed by the server (errors carry line and column).",
    )

    def validate(self, attrs):
        if "variables" in attrs and "variables_text" in attrs:
            raise serializers.ValidationError("give either variables or variables_text, not both")
        return attrs


class ErrorDetailSerializer(serializers.Serializer):
    code = serializers.CharField()
    message = serializers.CharField()
    document = serializers.JSONField(allow_null=True, help_text="The document (name or index) it belongs to.")
    path = serializers.CharField(allow_null=True, help_text="The field it concerns, e.g. documents[0].text.")
    line = serializers.IntegerField(allow_null=True)
    column = serializers.IntegerField(allow_null=True)


class ErrorSerializer(serializers.Serializer):
    error = ErrorDetailSerializer()


class CELResultSerializer(serializers.Serializer):
    result = serializers.JSONField(help_text="The value, as plain JSON (see evaluator/README.md).")
    type = serializers.CharField(help_text="The CEL type of the value (e.g. int, string, list).")
    cost = serializers.IntegerField(help_text="The evaluation's runtime cost, as the API server counts it.")


class ExpectedSerializer(serializers.Serializer):
    """evaluator/expectations.py's expected outcome (its KEYS); checked by core/expectations.py, which
    names the request in its errors."""

    allowed = serializers.BooleanField(required=False)
    outcome = serializers.ChoiceField(choices=list(OUTCOMES), required=False)
    messageContains = serializers.CharField(required=False, trim_whitespace=False)


@extend_schema_field(ExpectedSerializer(allow_null=True))
class Expected(strict.Object):
    pass


class DocumentInSerializer(serializers.Serializer):
    """A document's body (REST) and the item fields of the edit/create messages (WebSocket); null = not given."""

    name = strict.Text(required=False, allow_null=True, help_text="at most 200 characters (longer is cut)")
    text = strict.Text(
        required=False,
        allow_null=True,
        help_text=f"YAML or JSON, at most PLAYGROUND_MAX_DOCUMENT_BYTES ({settings.PLAYGROUND_MAX_DOCUMENT_BYTES}) "
        "bytes; in a project body a Kubernetes object may stand in place of {name, text}",
    )


class RequestInSerializer(DocumentInSerializer):
    expected = Expected(required=False, allow_null=True)


@extend_schema_field(DocumentInSerializer(many=True))
class Documents(strict.Array):
    """Items of a project body: {name, text} or a Kubernetes object each, read by project_service."""


@extend_schema_field(RequestInSerializer(many=True))
class Requests(strict.Array):
    """Sample requests of a project body, read by project_service."""


KUBERNETES_VERSION_HELP = "the Kubernetes release to simulate, e.g. 1.31"


class ProjectInSerializer(serializers.Serializer):
    title = strict.Text(required=False)
    description = strict.Text(required=False)
    documents = Documents(required=False, allow_null=True)
    requests = Requests(required=False, allow_null=True)
    kubernetesVersion = strict.Text(required=False, allow_null=True, help_text=KUBERNETES_VERSION_HELP)


class ProjectPatchSerializer(serializers.Serializer):
    """A project's metadata (REST PATCH and the `meta` message); null = not given."""

    title = strict.Text(required=False, allow_null=True)
    description = strict.Text(required=False, allow_null=True)
    kubernetesVersion = strict.Text(required=False, allow_null=True, help_text=KUBERNETES_VERSION_HELP)


class EvaluateInSerializer(serializers.Serializer):
    documents = Documents()
    requests = Requests(required=False, allow_null=True)
    kubernetesVersion = strict.Text(required=False, allow_null=True, help_text=KUBERNETES_VERSION_HELP)


class SnapshotRefSerializer(serializers.Serializer):
    id = serializers.CharField()
    url = serializers.CharField()


# issue 37: load from a connected cluster (playground/api/cluster_views.py)
def _checked_by(problem):
    """A field validator from an evaluator check (None when fine): its text is the 400's message."""

    def check(value: str) -> None:
        wrong = problem(value) if value else None
        if wrong:
            raise serializers.ValidationError(wrong)

    return check


def _kind_given(value: str) -> None:
    if not value.strip():
        raise serializers.ValidationError("Required value: name a kind (Deployment, apps/v1/Deployment)")


class _KnownFields(serializers.Serializer):
    """A nested object whose unknown fields are refused (a misspelt `labelselector` would read everything)."""

    def to_internal_value(self, data):
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError({unknown[0]: f"unknown field (expected {', '.join(self.fields)})"})
        return super().to_internal_value(data)


class ClusterObjectQuerySerializer(_KnownFields):
    kind = strict.Text(
        allow_blank=False, help_text="Deployment, apps/v1/Deployment or deployments.apps", validators=[_kind_given]
    )
    namespace = strict.Text(
        required=False,
        allow_null=True,
        help_text="only this namespace (default: all)",
        validators=[_checked_by(namespace_problem)],
    )
    labelSelector = strict.Text(
        required=False,
        allow_null=True,
        help_text="e.g. team=a,tier!=db",
        validators=[_checked_by(selector_problem)],
    )


class ClusterSelectionSerializer(serializers.Serializer):
    policies = strict.Boolean(required=False, help_text="every supported policy, binding and exception kind")
    crds = strict.Boolean(required=False)
    namespaces = strict.Boolean(required=False, help_text="namespaces with their labels")
    params = strict.Boolean(required=False, help_text="the objects of the admission policies' paramKinds")
    objects = ClusterObjectQuerySerializer(many=True, required=False, max_length=20)


class ClusterRefreshSerializer(serializers.Serializer):
    documentIds = serializers.ListField(
        child=strict.Integer(), required=False, allow_null=True, help_text="default: every loaded document"
    )


class ClusterObjectRefSerializer(_KnownFields):
    kind = strict.Text(allow_blank=False, validators=[_kind_given])
    namespace = strict.Text(required=False, allow_null=True, validators=[_checked_by(namespace_problem)])
    name = strict.Text(allow_blank=False, validators=[_checked_by(name_problem)])


class ClusterSampleRequestSerializer(serializers.Serializer):
    operation = serializers.ChoiceField(choices=["CREATE", "UPDATE"])
    documentId = strict.Integer(required=False, help_text="a loaded document's object ...")
    object = ClusterObjectRefSerializer(required=False, help_text="... or an object read from the cluster now")
