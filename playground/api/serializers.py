"""Request and response shapes of the API (also the source of the OpenAPI schema), in one module.

The project bodies are checked by the services (shared with the WebSocket, which has no serializers), so
these shapes follow the services' definitions rather than repeat them: an expected outcome's fields and
outcomes come from evaluator/expectations.py, the size limits from settings.
"""

from django.conf import settings
from rest_framework import serializers

from evaluator.expectations import OUTCOMES


class CELRequestSerializer(serializers.Serializer):
    expression = serializers.CharField(allow_blank=True, trim_whitespace=False)
    variables = serializers.DictField(
        child=serializers.JSONField(),
        required=False,
        help_text="Variables as a JSON object. Give this or variables_text, not both.",
    )
    variables_text = serializers.CharField(
        required=False,
        allow_blank=True,
        trim_whitespace=False,
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
    """evaluator/expectations.py's expected outcome (its KEYS)."""

    allowed = serializers.BooleanField(required=False)
    outcome = serializers.ChoiceField(choices=list(OUTCOMES), required=False)
    messageContains = serializers.CharField(required=False, trim_whitespace=False)


class DocumentInSerializer(serializers.Serializer):
    name = serializers.CharField(required=False, allow_blank=True, max_length=200)
    text = serializers.CharField(
        required=False,
        allow_blank=True,
        trim_whitespace=False,
        help_text=f"YAML or JSON, at most PLAYGROUND_MAX_DOCUMENT_BYTES ({settings.PLAYGROUND_MAX_DOCUMENT_BYTES}) "
        "bytes; in a project body a Kubernetes object may stand in place of {name, text}",
    )


class RequestInSerializer(DocumentInSerializer):
    expected = ExpectedSerializer(required=False, allow_null=True)


KUBERNETES_VERSION_HELP = "the Kubernetes release to simulate, e.g. 1.31"


class ProjectInSerializer(serializers.Serializer):
    title = serializers.CharField(required=False, allow_blank=True)
    description = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False)
    documents = DocumentInSerializer(many=True, required=False, max_length=settings.PLAYGROUND_MAX_ITEMS)
    requests = RequestInSerializer(many=True, required=False, max_length=settings.PLAYGROUND_MAX_ITEMS)
    kubernetesVersion = serializers.CharField(required=False, help_text=KUBERNETES_VERSION_HELP)


class ProjectPatchSerializer(serializers.Serializer):
    title = serializers.CharField(required=False, allow_blank=True)
    description = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False)
    kubernetesVersion = serializers.CharField(required=False, help_text=KUBERNETES_VERSION_HELP)


class EvaluateInSerializer(serializers.Serializer):
    documents = DocumentInSerializer(many=True, max_length=settings.PLAYGROUND_MAX_ITEMS)
    requests = RequestInSerializer(many=True, required=False, max_length=settings.PLAYGROUND_MAX_ITEMS)
    kubernetesVersion = serializers.CharField(required=False, help_text=KUBERNETES_VERSION_HELP)


class SnapshotRefSerializer(serializers.Serializer):
    id = serializers.CharField()
    url = serializers.CharField()
