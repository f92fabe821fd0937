from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('accounts', '0003_user_notify_batch_email'),
    ]

    operations = [
        migrations.AddField(
            model_name='user',
            name='is_org_admin',
            field=models.BooleanField(default=False, help_text="May manage the organisation's settings, such as its provider accounts.", verbose_name='organisation admin'),
        ),
    ]
