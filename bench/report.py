"""What every bench result file starts with: its title, the machine, and the command that made it."""

from __future__ import annotations

import datetime
import json
import platform
import sys
from pathlib import Path


def start(out_dir: str, title: str) -> tuple:
    """(day, output folder (made), the first lines of the markdown report: title, machine, command).
    The command is this process's own argument list, so it is the one that produced the file."""
    day = datetime.date.today().isoformat()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    script = Path(sys.argv[0])
    command = " ".join(["python", f"bench/{script.name}", *sys.argv[1:]])
    lines = [
        f"# {title} ({day})",
        "",
        f"- machine: {platform.processor() or platform.machine()}, Python {platform.python_version()}",
        f"- command: `{command}`",
    ]
    return day, out, lines


def finish(out: Path, stem: str, lines: list, data: dict) -> None:
    """Write ``stem.md`` (the lines) and ``stem.json`` (the data) into ``out``; print the table."""
    (out / f"{stem}.md").write_text("\n".join(lines) + "\n")
    (out / f"{stem}.json").write_text(json.dumps(data, indent=1))
    print("\n".join(lines))
    print(f"wrote {out / stem}.md", file=sys.stderr)
