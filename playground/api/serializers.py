"""Request and response shapes of the API (also the source of the OpenAPI schema)."""

from rest_framework import serializers


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
