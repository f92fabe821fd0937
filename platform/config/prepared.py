"""Reads of one row that every API request makes, with their SQL compiled once per process.

Django compiles a queryset to SQL on every evaluation: for the token lookup (the token, its
user and the user's organisation in one join) and a job by id, the compilation cost more CPU
than the database's answer (about half of a job poll). A `OneRow` compiles its queryset's
shape once per database connection alias, with marker values where the request's values go,
and then only executes that SQL with the request's values and builds the model instances as
Django's own iterable does (from_db, the select_related populators, the field converters).
The statement is the same one the queryset runs: it goes through the connection's cursor
(its error wrapping, query logging and counting alike).
"""

from __future__ import annotations

import secrets
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from django.db import connections, models
from django.db.models.query import get_related_populators  # type: ignore[attr-defined]

M = TypeVar("M", bound=models.Model)


@dataclass(frozen=True)
class _Compiled:
    sql: str
    params: tuple[Any, ...]
    slots: tuple[tuple[int, str, models.Field[Any, Any]], ...]  # (param index, name, field)
    model: type[models.Model]
    init_list: tuple[str, ...]
    start: int
    end: int
    populators: tuple[Any, ...]
    converters: tuple[tuple[int, tuple[Callable[..., Any], ...], Any], ...]


def _marker(field: models.Field[Any, Any]) -> Any:
    if isinstance(field, models.UUIDField):
        return uuid.uuid4()
    if isinstance(field, models.CharField):
        return f"marker-{secrets.token_hex(16)}"
    raise TypeError(f"OneRow has no marker for a {type(field).__name__}")


class OneRow(Generic[M]):
    """At most one instance of the queryset that `build(**values)` returns; `fields` names the
    model field each value is compared with (it prepares the value for the database). The
    queryset must differ between calls by those values only."""

    def __init__(self, build: Callable[..., models.QuerySet[M]],
                 **fields: models.Field[Any, Any]) -> None:
        self._build = build
        self._fields = fields
        self._compiled: dict[str, _Compiled] = {}
        self._lock = threading.Lock()

    def get(self, *, using: str = "default", **values: Any) -> M | None:
        compiled = self._compiled.get(using) or self._compile(using)
        connection = connections[using]
        params = list(compiled.params)
        for index, name, field in compiled.slots:
            params[index] = field.get_db_prep_value(values[name], connection)
        with connection.cursor() as cursor:
            cursor.execute(compiled.sql, params)
            row = cursor.fetchone()
        if row is None:
            return None
        row = list(row)
        for pos, convs, expression in compiled.converters:
            value = row[pos]
            for converter in convs:
                value = converter(value, expression, connection)
            row[pos] = value
        obj = compiled.model.from_db(using, list(compiled.init_list),
                                     row[compiled.start:compiled.end])
        for populator in compiled.populators:
            populator.populate(row, obj)
        return obj  # type: ignore[return-value]

    def _compile(self, using: str) -> _Compiled:
        with self._lock:
            found = self._compiled.get(using)
            if found is not None:
                return found
            connection = connections[using]
            markers = {name: _marker(field) for name, field in self._fields.items()}
            queryset = self._build(**markers)
            compiler = queryset.query.get_compiler(using=using)
            sql, params = compiler.as_sql()
            prepared = {name: field.get_db_prep_value(markers[name], connection)
                        for name, field in self._fields.items()}
            slots = []
            for index, param in enumerate(params):
                for name, value in prepared.items():
                    if param == value:
                        slots.append((index, name, self._fields[name]))
            if sorted(name for _, name, _ in slots) != sorted(self._fields):
                raise ValueError(f"OneRow: each value must appear once in {sql!r}")
            klass_info = compiler.klass_info
            select = compiler.select
            assert klass_info is not None
            fields = klass_info["select_fields"]
            start, end = fields[0], fields[-1] + 1
            converters = compiler.get_converters(
                [s[0] for s in select[0:compiler.col_count]])
            compiled = _Compiled(
                sql=sql, params=tuple(params), slots=tuple(slots), model=klass_info["model"],
                init_list=tuple(f[0].target.attname for f in select[start:end]),
                start=start, end=end,
                populators=tuple(get_related_populators(klass_info, select, using)),
                converters=tuple((pos, tuple(convs), expression)
                                 for pos, (convs, expression) in converters.items()),
            )
            self._compiled[using] = compiled
            return compiled
