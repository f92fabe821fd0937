"""The ``atelier`` command: login, token, tools, upload, urls, run, wait, download, jobs."""

from __future__ import annotations

import csv
import io
import json
import logging
import os
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table

from atelier.cards import CardError, cards_from_csv, inputs_from_flags
from atelier.client import IMAGE_SUFFIXES, Atelier, AtelierError, Update
from atelier.config import config_path, load_config, save_config

app = typer.Typer(help="Atelier from the command line: upload, run, wait, download.",
                  no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False)
out = Console()
err = Console(stderr=True)


def client() -> Atelier:
    found = Atelier()
    if not found.token:
        err.print("[red]No token.[/] Run `atelier login`, or set ATELIER_URL and ATELIER_TOKEN.")
        raise typer.Exit(2)
    return found


def fail(exc: Exception) -> typer.Exit:
    if isinstance(exc, AtelierError):
        err.print(f"[red]{exc.status} {exc.code}:[/] {exc.message}")
        for name, problems in list(exc.fields.items())[:20]:
            err.print(f"  {name}: {problems}")
    else:
        err.print(f"[red]{exc}[/]")
    return typer.Exit(1)


@app.command()
def login(url: str = typer.Option(None, help="The stack, e.g. http://127.0.0.1:8000"),
          token: str = typer.Option(None, help="An API token (atl_...)")) -> None:
    """Store the stack's URL and your API token (ATELIER_URL / ATELIER_TOKEN override them)."""
    stored = load_config()
    url = url or typer.prompt("Atelier URL", default=stored.get("url") or "http://127.0.0.1:8000")
    token = token or typer.prompt("API token", hide_input=True)
    try:
        with Atelier(url, token) as api:
            me = api.me()
    except (AtelierError, OSError) as exc:
        raise fail(exc) from exc
    path = save_config(url.rstrip("/"), token)
    org = (me.get("organization") or {}).get("name", "")
    out.print(f"Signed in as {me.get('email')}" + (f" ({org})" if org else "")
              + f"; saved in {path}")


@app.command()
def token() -> None:
    """Print the API token in use."""
    found = os.environ.get("ATELIER_TOKEN") or load_config().get("token")
    if not found:
        err.print(f"No token: run `atelier login` (config: {config_path()}).")
        raise typer.Exit(2)
    typer.echo(found)


@app.command()
def tools() -> None:
    """The catalogue: each tool's slug, name and whether you may use it."""
    try:
        with client() as api:
            rows = api.tools.list()
    except AtelierError as exc:
        raise fail(exc) from exc
    table = Table("slug", "name", "category", "access")
    for t in rows:
        table.add_row(t["slug"], t["name"], t["category"], "locked" if t["locked"] else "open")
    out.print(table)


@app.command()
def upload(directory: Path = typer.Argument(..., exists=True, help="A folder, a file or a zip"),
           tool: str = typer.Option(None, help="Upload into this tool's input folder"),
           folder: str = typer.Option(None, help="...or into this drive folder (its id)"),
           category: str = typer.Option(None, help="The input folder's category (Flats: "
                                                   "shoes, bottom, top, overlayer)"),
           parallel: int = typer.Option(4, help="Requests at once"),
           all_files: bool = typer.Option(False, "--all", help="Send every file, not only "
                                                               "images and zips")) -> None:
    """Upload the images (and zips) of DIRECTORY; files already there are skipped."""
    if not (tool or folder):
        err.print("Give --tool SLUG or --folder ID.")
        raise typer.Exit(2)
    if directory.is_dir():
        paths = sorted(p for p in directory.iterdir() if p.is_file()
                       and not p.name.startswith(".")
                       and (all_files or p.suffix.lower() in (*IMAGE_SUFFIXES, ".zip")))
    else:
        paths = [directory]
    try:
        with client() as api:
            target = folder or api.drives.folder(tool, "input", category)
            with Progress(SpinnerColumn(), TextColumn("uploading"), BarColumn(),
                          MofNCompleteColumn(), TimeElapsedColumn(), console=err,
                          transient=True) as bar:
                task = bar.add_task("upload", total=len(paths))
                result = api.drives.upload(
                    target, paths, parallel=parallel,
                    on_progress=lambda done, total: bar.update(task, completed=done,
                                                               total=total or 1))
    except (AtelierError, ValueError) as exc:
        raise fail(exc) from exc
    for skip in result.skipped:
        err.print(f"[yellow]skipped[/] {skip['name']}: {skip['reason']}")
    out.print(f"{len(result.uploaded)} uploaded, {len(result.existing)} already there, "
              f"{len(result.skipped)} skipped")


@app.command()
def urls(tool: str,
         csv_out: bool = typer.Option(False, "--csv", help="Print a cards CSV, one row per image"),
         field: str = typer.Option("image_url", help="The CSV's image column"),
         set_: list[str] = typer.Option(  # noqa: B008
             [], "--set", help="FIELD=VALUE in every row of the CSV")) -> None:
    """The signed links of a tool's input images (its Get URLs call), or a cards CSV of them."""
    try:
        with client() as api:
            links = api.tools.urls(tool)
    except (AtelierError, ValueError) as exc:
        raise fail(exc) from exc
    if not csv_out:
        for link in links:
            typer.echo(link)
        return
    extra: dict[str, str] = {}
    for pair in set_ or ():
        name, _, value = pair.partition("=")
        extra[name] = value
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([field, *extra])
    for link in links:
        writer.writerow([link, *extra.values()])
    typer.echo(buf.getvalue(), nl=False)


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def run(ctx: typer.Context, tool: str,
        cards: Path = typer.Option(None, exists=True, help="A card tool's cards: a CSV with "
                                                           "one column per card field"),
        wait_: bool = typer.Option(None, "--wait/--no-wait", help="Follow the run to the end "
                                   "(default: yes for a direct tool, no for cards)"),
        fields: bool = typer.Option(False, "--fields", help="List the tool's fields and stop"),
        webhook_url: str = typer.Option(None, "--webhook-url", help="Also POST each job's "
                                        "finished event to this https URL (signed)")
        ) -> None:
    """Run a tool. Card tools: --cards cards.csv. Direct tools: one flag per field, e.g.
    `atelier run try-on --garment URL --model URL`."""
    try:
        with client() as api:
            call = api.tools.call(tool)
            if fields:
                _print_fields(call)
                return
            if call.cards:
                if cards is None:
                    err.print(f"{call.name} takes cards: --cards cards.csv with columns "
                              + ", ".join(f.name for f in call.fields))
                    raise typer.Exit(2)
                batch = api.tools.run(tool, cards=cards_from_csv(cards, call),
                                      webhook_url=webhook_url)
                out.print(f"batch {batch['batch_id']}: {batch['count']} jobs")
                for skip in batch.get("skipped") or []:
                    err.print(f"[yellow]skipped[/] {skip}")
                if wait_:
                    raise typer.Exit(_wait(api, str(batch["batch_id"])))
                out.print(f"Follow it with: atelier wait {batch['batch_id']}")
                return
            inputs = inputs_from_flags(list(ctx.args), call)
            if wait_ is False:
                job = api.tools.run(tool, inputs=inputs, wait=False, webhook_url=webhook_url)
                out.print(f"job {job['id']}: {job['status']}")
                return
            with _bar(1) as (bar, task):
                job = api.tools.run(tool, inputs=inputs, webhook_url=webhook_url,
                                    on_update=lambda u: _advance(bar, task, u))
            _print_job(job)
            raise typer.Exit(0 if job["status"] == "succeeded" else 1)
    except (AtelierError, CardError, ValueError) as exc:
        raise fail(exc) from exc


def _print_fields(call: Any) -> None:
    table = Table("field", "type", "required", "choices")
    for f in call.fields:
        table.add_row(f.name, f.type if f.type != "array" else f"array of {f.item_type}",
                      "yes" if f.required else "", ", ".join(f.choices or [])[:80])
        for sub in f.fields:
            table.add_row(f"  {f.name}.0.{sub.name}", sub.type, "yes" if sub.required else "",
                          ", ".join(sub.choices or [])[:80])
    out.print(f"{call.name}: POST {call.path} ({'cards' if call.cards else 'one object'})")
    out.print(table)


def _print_job(job: dict[str, Any]) -> None:
    out.print(f"job {job['id']}: {job['status']}")
    if job.get("error"):
        err.print(f"[red]{job['error'].get('code')}:[/] {job['error'].get('message')}")
    for output in job.get("outputs", []):
        typer.echo(output["url"])


class _bar:
    def __init__(self, total: int) -> None:
        self.progress = Progress(
            SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
            TextColumn("[green]{task.fields[done]} done[/] [red]{task.fields[failed]} failed[/]"),
            TextColumn("{task.fields[eta]}"), TimeElapsedColumn(), console=err)
        self.total = total

    def __enter__(self) -> tuple[Progress, Any]:
        self.progress.__enter__()
        task = self.progress.add_task("queued", total=self.total, done=0, failed=0, eta="")
        return self.progress, task

    def __exit__(self, *exc: object) -> None:
        self.progress.__exit__(None, None, None)


def _eta(seconds: float | None) -> str:
    if seconds is None:
        return ""
    seconds = int(seconds)
    return f"ETA {seconds // 60}:{seconds % 60:02d}"


def _advance(bar: Progress, task: Any, update: Update) -> None:
    finished = update.done + update.failed
    partial = (update.progress or 0) * update.total - finished if update.progress else 0
    where = update.status
    if update.status == "queued" and update.queue_position is not None:
        where = f"queued (#{update.queue_position})"
    elif update.running:
        where = f"running {update.running}"
    bar.update(task, total=max(update.total, 1), completed=finished + max(partial, 0),
               description=where, done=update.done, failed=update.failed,
               eta=_eta(update.eta_seconds))


def _wait(api: Atelier, batch: str) -> int:
    with _bar(1) as (bar, task):
        update = api.jobs.subscribe(batch, on_update=lambda u: _advance(bar, task, u))
    out.print(f"{update.done} succeeded, {update.failed} failed of {update.total}")
    for job in update.jobs:
        if job["status"] != "succeeded" and job.get("error"):
            err.print(f"[red]{job['id']}[/] {job['error'].get('code')}: "
                      f"{job['error'].get('message')}")
    return 0 if update.failed == 0 else 1


@app.command()
def wait(batch: str = typer.Argument(..., help="A batch id (or a job id)")) -> None:
    """Follow a batch to the end with a progress bar (done, failed, ETA); exits 1 when any job
    failed."""
    try:
        with client() as api:
            code = _wait(api, batch)
    except AtelierError as exc:
        raise fail(exc) from exc
    raise typer.Exit(code)


@app.command()
def download(batch: str, directory: Path) -> None:
    """Download every output of a batch into DIRECTORY (files already there are kept)."""
    try:
        with client() as api:
            paths = api.batches.download(batch, directory)
    except AtelierError as exc:
        raise fail(exc) from exc
    out.print(f"{len(paths)} files in {directory}")


@app.command()
def jobs(batch: str = typer.Option(None, help="Only this batch's jobs"),
         status: str = typer.Option(None, help="queued, running, succeeded, failed, canceled"),
         tool: str = typer.Option(None), limit: int = typer.Option(20),
         as_json: bool = typer.Option(False, "--json", help="Print the jobs as JSON")) -> None:
    """Your latest jobs."""
    try:
        with client() as api:
            rows = api.jobs.list(batch=batch, status=status, tool=tool, limit=limit)
    except AtelierError as exc:
        raise fail(exc) from exc
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    head = ["id", "tool", "status", "progress", "queue", "eta", "created", "outputs"]
    rows_out = [[str(job["id"]), job["tool"], job["status"], f"{int(job.get('progress') or 0)}%",
                 "" if job.get("queue_position") is None else str(job["queue_position"]),
                 _eta(job.get("eta_seconds")),
                 str(job["created_at"])[:16].replace("T", " "),
                 str(len(job.get("outputs") or []))] for job in rows]
    if not out.is_terminal:  # a pipe: tab-separated, one job a line
        for line in [head, *rows_out]:
            typer.echo("\t".join(line))
        return
    table = Table(*head)
    for row in rows_out:
        table.add_row(*row)
    out.print(table)


@app.callback()
def _quiet() -> None:
    """The HTTP library's request log is not the command's output."""
    logging.getLogger("httpx").setLevel(logging.WARNING)


def main() -> None:
    app(prog_name="atelier")


if __name__ == "__main__":
    main()
