import django.utils.timezone
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("playground", "0002_text_changes"),
    ]

    operations = [
        migrations.AddField(
            model_name="presence",
            name="seen",
            field=models.DateTimeField(db_index=True, default=django.utils.timezone.now),
        ),
    ]
