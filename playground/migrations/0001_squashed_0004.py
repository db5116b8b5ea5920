import django.db.models.deletion
import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):
    # Databases migrated before the squash recorded these; new ones start here.
    replaces = [
        ("playground", "0001_initial"),
        ("playground", "0002_project_kubernetes_version"),
        ("playground", "0002_text_changes"),
        ("playground", "0003_merge_20261125_1726"),
        ("playground", "0003_presence_seen"),
        ("playground", "0004_merge_0003_merge_20261125_1726_0003_presence_seen"),
    ]

    initial = True

    dependencies = []

    operations = [
        migrations.CreateModel(
            name="Presence",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("project_id", models.CharField(db_index=True, max_length=64)),
                ("channel_name", models.CharField(max_length=200, unique=True)),
                ("connected", models.DateTimeField(auto_now_add=True)),
                ("seen", models.DateTimeField(db_index=True, default=django.utils.timezone.now)),
            ],
        ),
        migrations.CreateModel(
            name="Project",
            fields=[
                ("id", models.CharField(max_length=64, primary_key=True, serialize=False)),
                ("title", models.CharField(blank=True, default="", max_length=200)),
                ("description", models.TextField(blank=True, default="")),
                ("created", models.DateTimeField(auto_now_add=True)),
                ("updated", models.DateTimeField(auto_now=True)),
                ("version", models.PositiveBigIntegerField(default=1)),
                ("edit_token_hash", models.CharField(blank=True, default="", max_length=128)),
                ("is_example", models.BooleanField(default=False)),
                ("kubernetes_version", models.CharField(blank=True, default="", max_length=8)),
            ],
        ),
        migrations.CreateModel(
            name="Snapshot",
            fields=[
                ("id", models.CharField(max_length=16, primary_key=True, serialize=False)),
                ("content", models.JSONField()),
                ("engine_version", models.CharField(max_length=64)),
                ("created", models.DateTimeField(auto_now_add=True)),
            ],
        ),
        migrations.CreateModel(
            name="Document",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("name", models.CharField(max_length=200)),
                ("position", models.PositiveIntegerField(default=0)),
                ("text", models.TextField(blank=True, default="")),
                ("updated", models.DateTimeField(auto_now=True)),
                ("version", models.PositiveBigIntegerField(default=1)),
                ("collab_version", models.PositiveBigIntegerField(default=0)),
                (
                    "project",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="documents", to="playground.project"
                    ),
                ),
            ],
            options={
                "ordering": ["position", "id"],
            },
        ),
        migrations.CreateModel(
            name="SampleRequest",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("name", models.CharField(max_length=200)),
                ("position", models.PositiveIntegerField(default=0)),
                ("text", models.TextField(blank=True, default="")),
                ("expected", models.JSONField(blank=True, null=True)),
                ("updated", models.DateTimeField(auto_now=True)),
                ("version", models.PositiveBigIntegerField(default=1)),
                ("collab_version", models.PositiveBigIntegerField(default=0)),
                (
                    "project",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE, related_name="requests", to="playground.project"
                    ),
                ),
            ],
            options={
                "ordering": ["position", "id"],
            },
        ),
        migrations.AddField(
            model_name="project",
            name="forked_from_snapshot",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="forks",
                to="playground.snapshot",
            ),
        ),
        migrations.CreateModel(
            name="TextChange",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("target", models.CharField(max_length=8)),
                ("item_id", models.BigIntegerField()),
                ("version", models.PositiveBigIntegerField()),
                ("changes", models.JSONField()),
                ("client_id", models.CharField(max_length=64)),
                (
                    "project",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="text_changes",
                        to="playground.project",
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(fields=("target", "item_id", "version"), name="one_change_per_version")
                ],
            },
        ),
    ]
