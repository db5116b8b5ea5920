"""Request bodies of the workshop API, for the OpenAPI schema (the services check the values)."""

from rest_framework import serializers


class RoomInSerializer(serializers.Serializer):
    set = serializers.CharField(help_text="Slug of an exercise set, e.g. admission-basics")
    title = serializers.CharField(required=False)


class JoinInSerializer(serializers.Serializer):
    displayName = serializers.CharField()
    token = serializers.CharField(required=False, help_text="A browser token from an earlier join: resumes")
