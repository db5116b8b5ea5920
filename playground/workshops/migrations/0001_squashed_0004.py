import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    # Databases migrated before the squash recorded these; new ones start here.
    replaces = [
        ("workshops", "0001_initial"),
        ("workshops", "0002_participant_seen"),
        ("workshops", "0003_dashboard_diagnosis"),
        ("workshops", "0004_time_box_coteacher"),
    ]

    initial = True

    dependencies = [
        ("playground", "0001_squashed_0004"),
    ]

    operations = [
        migrations.CreateModel(
            name="ExerciseSet",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("slug", models.SlugField(max_length=80, unique=True)),
                ("title", models.CharField(max_length=200)),
                ("description", models.TextField(blank=True, default="")),
                ("updated", models.DateTimeField(auto_now=True)),
            ],
        ),
        migrations.CreateModel(
            name="Participant",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("display_name", models.CharField(max_length=80)),
                ("token_hash", models.CharField(max_length=128, unique=True)),
                ("connections", models.IntegerField(default=0)),
                ("seen", models.DateTimeField(blank=True, null=True)),
                ("joined", models.DateTimeField(auto_now_add=True)),
                ("last_activity", models.DateTimeField(blank=True, null=True)),
            ],
            options={
                "ordering": ["joined", "id"],
            },
        ),
        migrations.CreateModel(
            name="Exercise",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("position", models.PositiveIntegerField()),
                ("slug", models.SlugField(max_length=80)),
                ("title", models.CharField(max_length=200)),
                ("task", models.TextField(blank=True, default="")),
                ("hints", models.JSONField(default=list)),
                ("starter", models.JSONField(default=list)),
                ("solution", models.JSONField(default=list)),
                ("checks", models.JSONField(default=list)),
                (
                    "exercise_set",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="exercises",
                        to="workshops.exerciseset",
                    ),
                ),
            ],
            options={
                "ordering": ["exercise_set_id", "position"],
            },
        ),
        migrations.CreateModel(
            name="ExerciseFork",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("edit_token", models.CharField(max_length=128)),
                (
                    "exercise",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="forks", to="workshops.exercise"
                    ),
                ),
                (
                    "project",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="+", to="playground.project"
                    ),
                ),
                (
                    "participant",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="forks", to="workshops.participant"
                    ),
                ),
            ],
        ),
        migrations.CreateModel(
            name="Progress",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("passed", models.PositiveIntegerField(default=0)),
                ("total", models.PositiveIntegerField(default=0)),
                ("checks", models.JSONField(default=list)),
                ("project_version", models.PositiveBigIntegerField(default=0)),
                ("submitted_at", models.DateTimeField(blank=True, null=True)),
                ("completed_at", models.DateTimeField(blank=True, null=True)),
                ("last_activity", models.DateTimeField(blank=True, null=True)),
                ("compiles", models.BooleanField(null=True)),
                ("errors", models.JSONField(default=list)),
                ("started_at", models.DateTimeField(blank=True, null=True)),
                ("progressed_at", models.DateTimeField(blank=True, null=True)),
                (
                    "exercise",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="progress", to="workshops.exercise"
                    ),
                ),
                (
                    "participant",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="progress", to="workshops.participant"
                    ),
                ),
            ],
        ),
        migrations.CreateModel(
            name="Room",
            fields=[
                ("code", models.CharField(max_length=12, primary_key=True, serialize=False)),
                ("title", models.CharField(blank=True, default="", max_length=200)),
                ("teacher_token_hash", models.CharField(max_length=128)),
                ("coteacher_token_hash", models.CharField(blank=True, default="", max_length=128)),
                ("position", models.PositiveIntegerField(default=0)),
                ("state", models.CharField(default="open", max_length=10)),
                ("announcement", models.TextField(blank=True, default="")),
                ("presenting", models.JSONField(blank=True, null=True)),
                ("revealed_hints", models.JSONField(default=dict)),
                ("revealed_solutions", models.JSONField(default=list)),
                ("stuck_minutes", models.PositiveIntegerField(default=5)),
                ("time_boxes", models.JSONField(default=dict)),
                ("time_box_locks", models.BooleanField(default=False)),
                ("position_started", models.DateTimeField(blank=True, null=True)),
                ("created", models.DateTimeField(auto_now_add=True)),
                ("updated", models.DateTimeField(auto_now=True)),
                ("closed_at", models.DateTimeField(blank=True, null=True)),
                (
                    "exercise_set",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.PROTECT, related_name="rooms", to="workshops.exerciseset"
                    ),
                ),
            ],
        ),
        migrations.AddField(
            model_name="participant",
            name="room",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.CASCADE, related_name="participants", to="workshops.room"
            ),
        ),
        migrations.AddConstraint(
            model_name="exercise",
            constraint=models.UniqueConstraint(fields=("exercise_set", "slug"), name="workshops_exercise_slug"),
        ),
        migrations.AddConstraint(
            model_name="exercise",
            constraint=models.UniqueConstraint(fields=("exercise_set", "position"), name="workshops_exercise_pos"),
        ),
        migrations.AddConstraint(
            model_name="exercisefork",
            constraint=models.UniqueConstraint(fields=("participant", "exercise"), name="workshops_one_fork"),
        ),
        migrations.AddConstraint(
            model_name="progress",
            constraint=models.UniqueConstraint(fields=("participant", "exercise"), name="workshops_one_progress"),
        ),
    ]
