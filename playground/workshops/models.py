"""Workshop state, all in the database so a room survives a restart and is shared by every server process.

An exercise is a small project template: task Markdown, starter documents, checks (sample requests with
expectations, some hidden until the student submits), hints and a reference solution only the teacher sees.
Each participant works in a private fork (an ordinary playground Project) of the room's current exercise.
"""

from __future__ import annotations

from django.db import models

ROOM_OPEN = "open"
ROOM_CLOSED = "closed"


class ExerciseSet(models.Model):
    """An ordered list of exercises, loaded from playground/workshops/sets/<slug>.yaml."""

    slug = models.SlugField(max_length=80, unique=True)
    title = models.CharField(max_length=200)
    description = models.TextField(blank=True, default="")
    updated = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return self.slug


class Exercise(models.Model):
    exercise_set = models.ForeignKey(ExerciseSet, on_delete=models.CASCADE, related_name="exercises")
    position = models.PositiveIntegerField()
    slug = models.SlugField(max_length=80)
    title = models.CharField(max_length=200)
    task = models.TextField(blank=True, default="")  # Markdown, rendered and sanitised server-side
    hints = models.JSONField(default=list)  # [markdown], revealed one at a time
    starter = models.JSONField(default=list)  # [{name, text}]
    solution = models.JSONField(default=list)  # [{name, text}]: the teacher's only
    checks = models.JSONField(default=list)  # [{name, text, expected, hidden}]

    class Meta:
        ordering = ["exercise_set_id", "position"]
        constraints = [
            models.UniqueConstraint(fields=["exercise_set", "slug"], name="workshops_exercise_slug"),
            models.UniqueConstraint(fields=["exercise_set", "position"], name="workshops_exercise_pos"),
        ]


class Room(models.Model):
    """A class session: a join code, the exercise everyone is on, what the teacher has shared."""

    code = models.CharField(primary_key=True, max_length=12)
    exercise_set = models.ForeignKey(ExerciseSet, on_delete=models.PROTECT, related_name="rooms")
    title = models.CharField(max_length=200, blank=True, default="")
    teacher_token_hash = models.CharField(max_length=128)
    coteacher_token_hash = models.CharField(max_length=128, blank=True, default="")  # "" = no co-teacher link
    position = models.PositiveIntegerField(default=0)  # index of the current exercise in the set
    state = models.CharField(max_length=10, default=ROOM_OPEN)
    announcement = models.TextField(blank=True, default="")
    presenting = models.JSONField(null=True, blank=True)  # {"title", "documents": [{name, text}]} or null
    revealed_hints = models.JSONField(default=dict)  # {exercise id: how many hints are shown}
    revealed_solutions = models.JSONField(default=list)  # [exercise id]
    stuck_minutes = models.PositiveIntegerField(default=5)  # no progress this long flags a student as stuck
    time_boxes = models.JSONField(default=dict)  # {exercise id: minutes}: the teacher's optional time box
    time_box_locks = models.BooleanField(default=False)  # when time is up, edits are refused (the teacher's choice)
    position_started = models.DateTimeField(null=True, blank=True)  # when the room moved to the current exercise
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)
    closed_at = models.DateTimeField(null=True, blank=True)


class Participant(models.Model):
    """A student: a display name and a browser token (stored hashed); no account."""

    room = models.ForeignKey(Room, on_delete=models.CASCADE, related_name="participants")
    display_name = models.CharField(max_length=80)
    token_hash = models.CharField(max_length=128, unique=True)
    connections = models.IntegerField(default=0)  # open student sockets, across processes
    seen = models.DateTimeField(null=True, blank=True)  # last sign of an open socket (connect, message, ping)
    joined = models.DateTimeField(auto_now_add=True)
    last_activity = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["joined", "id"]


class ExerciseFork(models.Model):
    """The participant's private copy of one exercise: an ordinary project they hold the edit token of."""

    participant = models.ForeignKey(Participant, on_delete=models.CASCADE, related_name="forks")
    exercise = models.ForeignKey(Exercise, on_delete=models.CASCADE, related_name="forks")
    project = models.ForeignKey("playground.Project", on_delete=models.CASCADE, related_name="+")
    edit_token = models.CharField(max_length=128)  # handed back to the same browser token on resume

    class Meta:
        constraints = [models.UniqueConstraint(fields=["participant", "exercise"], name="workshops_one_fork")]


class Progress(models.Model):
    """How far a participant got on an exercise: passing checks over all checks, from the last evaluation."""

    participant = models.ForeignKey(Participant, on_delete=models.CASCADE, related_name="progress")
    exercise = models.ForeignKey(Exercise, on_delete=models.CASCADE, related_name="progress")
    passed = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    checks = models.JSONField(default=list)  # [{name, hidden, verdict, message}]
    project_version = models.PositiveBigIntegerField(default=0)
    submitted_at = models.DateTimeField(null=True, blank=True)
    completed_at = models.DateTimeField(null=True, blank=True)  # first time every check passed
    last_activity = models.DateTimeField(null=True, blank=True)
    compiles = models.BooleanField(null=True)  # from the last evaluation; null before the first
    errors = models.JSONField(default=list)  # the first few errors (playground/evaluation/workshop/diagnosis.py)
    started_at = models.DateTimeField(null=True, blank=True)  # first evaluation: the student opened the exercise
    progressed_at = models.DateTimeField(null=True, blank=True)  # last time a check started passing (or it compiled)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["participant", "exercise"], name="workshops_one_progress")]
