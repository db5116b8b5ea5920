"""Request bodies of the project API (used for validation and the OpenAPI schema)."""

from rest_framework import serializers


class ExpectedSerializer(serializers.Serializer):
    allowed = serializers.BooleanField(required=False)
    outcome = serializers.ChoiceField(choices=["allowed", "denied", "warned"], required=False)
    messageContains = serializers.CharField(required=False, trim_whitespace=False)


class DocumentInSerializer(serializers.Serializer):
    name = serializers.CharField(required=False, allow_blank=True)
    text = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False)


class RequestInSerializer(DocumentInSerializer):
    expected = ExpectedSerializer(required=False, allow_null=True)


class ProjectInSerializer(serializers.Serializer):
    title = serializers.CharField(required=False, allow_blank=True)
    description = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False)
    documents = DocumentInSerializer(many=True, required=False)
    requests = RequestInSerializer(many=True, required=False)
    kubernetesVersion = serializers.CharField(required=False, help_text="the Kubernetes release to simulate, e.g. 1.31")


class ProjectPatchSerializer(serializers.Serializer):
    title = serializers.CharField(required=False, allow_blank=True)
    description = serializers.CharField(required=False, allow_blank=True, trim_whitespace=False)
    kubernetesVersion = serializers.CharField(required=False, help_text="the Kubernetes release to simulate, e.g. 1.31")


class EvaluateInSerializer(serializers.Serializer):
    documents = DocumentInSerializer(many=True)
    requests = RequestInSerializer(many=True, required=False)
    kubernetesVersion = serializers.CharField(required=False, help_text="the Kubernetes release to simulate, e.g. 1.31")


class SnapshotRefSerializer(serializers.Serializer):
    id = serializers.CharField()
    url = serializers.CharField()
