"""Request bodies of the workshop API (and the OpenAPI schema). The teacher's actions are validated by these
serializers on both transports (REST here, the teacher socket through workshops/api/messages.py); the
rest are still read by the services."""

from rest_framework import serializers

from playground.api import strict
from playground.api.serializers import Documents


class SetImportInSerializer(serializers.Serializer):
    yaml = strict.Text(help_text="The set file (YAML), as an export writes it")


class SetComposeInSerializer(serializers.Serializer):
    set = strict.Object(help_text="The set file's fields as JSON: slug, title, exercises")


class RoomInSerializer(serializers.Serializer):
    set = strict.Text(help_text="Slug of an exercise set, e.g. admission-basics")
    title = strict.Text(required=False, allow_null=True)


class JoinInSerializer(serializers.Serializer):
    displayName = strict.Text(
        required=False, allow_null=True, help_text="Required (non-empty) unless the token resumes a participant"
    )
    token = strict.Text(required=False, allow_null=True, help_text="A browser token from an earlier join: resumes")


class AdvanceInSerializer(serializers.Serializer):
    position = strict.Integer(
        required=False, allow_null=True, help_text="the exercise index to go to; default: the next one"
    )


class AnnounceInSerializer(serializers.Serializer):
    text = strict.Text(help_text="at most 2,000 characters; empty clears the announcement")


class PresentInSerializer(serializers.Serializer):
    documents = Documents(required=False, allow_null=True, help_text="{name, text} each; null stops presenting")
    title = strict.Text(required=False, allow_null=True)


class TimeBoxInSerializer(serializers.Serializer):
    minutes = strict.Integer(help_text="0 to 240; 0 removes the time box")
    locks = strict.Boolean(required=False, help_text="refuse the students' edits once the time is up")
