import uuid

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    initial = True

    dependencies = [
        ('accounts', '0001_squashed_0004_user_is_org_admin'),
    ]

    operations = [
        migrations.CreateModel(
            name='ProviderAccount',
            fields=[
                ('id', models.UUIDField(default=uuid.uuid4, editable=False, primary_key=True, serialize=False)),
                ('kind', models.CharField(choices=[('fashn', 'FASHN'), ('fal', 'fal'), ('vertex', 'Vertex AI'), ('replicate', 'Replicate'), ('openai', 'OpenAI-compatible')], max_length=16)),
                ('label', models.CharField(blank=True, default='', max_length=100)),
                ('api_key_encrypted', models.TextField(editable=False)),
                ('key_last4', models.CharField(blank=True, default='', editable=False, max_length=4)),
                ('base_url', models.URLField(max_length=500)),
                ('fallback_local', models.BooleanField(default=False)),
                ('tools', models.JSONField(blank=True, default=list)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('updated_at', models.DateTimeField(auto_now=True)),
                ('models', models.JSONField(blank=True, default=dict)),
                ('organization', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='provider_accounts', to='accounts.organization')),
            ],
            options={
                'ordering': ['created_at'],
                'indexes': [models.Index(fields=['organization', 'created_at'], name='provider_account_org')],
            },
        ),
    ]
