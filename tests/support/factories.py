from __future__ import annotations

import factory

from accounts.models import Organization, User


class OrganizationFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Organization

    name = factory.Sequence(lambda n: f"Maison {n}")


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = User

    email = factory.Sequence(lambda n: f"partner{n}@maison.test")
    username = factory.SelfAttribute("email")
    organization = factory.SubFactory(OrganizationFactory)
    password = factory.django.Password("correct horse")
