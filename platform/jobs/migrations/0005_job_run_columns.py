# What a run needs is copied onto the job at submit (issue 19), and which engine made the
# result and its tier are kept once it ends (issue 20). Older rows keep these empty: the job
# core falls back on their queue's limits and a default ETA seed.

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("jobs", "0004_scale_indexes"),
    ]

    operations = [
        migrations.AddField(
            model_name="job",
            name="engine_name",
            field=models.CharField(blank=True, default="", max_length=64),
        ),
        migrations.AddField(
            model_name="job",
            name="soft_limit",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="job",
            name="hard_limit",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="job",
            name="expected_seconds",
            field=models.FloatField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="job",
            name="made_by",
            field=models.CharField(blank=True, default="", max_length=128),
        ),
        migrations.AddField(
            model_name="job",
            name="tier",
            field=models.CharField(blank=True, default="", max_length=16),
        ),
    ]
