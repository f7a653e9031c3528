#!/usr/bin/env python3
"""A real MCP client (the official Python SDK) against `webrig mcp` over stdio.

    python client.py [--webrig PATH] [--session NAME] [--click-label TEXT]
                     [--expect-gone TEXT] [--all-count N] URL

The server is `PATH mcp --tools core --session NAME` (PATH: --webrig, else env
WEBRIG_BIN, else `webrig` on PATH); WEBRIG_HOME, WEBRIG_PORT and WEBRIG_BROWSER
are passed through, so it finds (or starts) the same daemon as the CLI would.

Checks, in one session: initialize; list_tools is exactly the 12 core tools,
each with an object inputSchema; goto URL; snapshot (text with @e refs); click
the ref of the line holding --click-label (default: the first enabled button
or link); text (without --expect-gone TEXT once the click is done); eval;
tabs; screenshot (a PNG as image content); click @e9999 (isError, text
starting with `not_found`). Then a
server with `--tools all`: one tool per command of `webrig docs --openapi` (the
enum of Request.command), or --all-count N tools; it closes the session. Then
`--tools goto,title`: exactly those two.

Prints one JSON line (ok, timings per call in ms, …) and exits 0; on a failure
prints a JSON line with ok=false and the reason, the reason on stderr, exits 1.
"""

from __future__ import annotations

import argparse
import base64
import json
import os
import re
import shutil
import subprocess
import sys
import time
from datetime import timedelta

import anyio
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

try:
    BaseExceptionGroup
except NameError:  # Python 3.10: anyio's backport
    from exceptiongroup import BaseExceptionGroup

CORE = [
    "goto",
    "snapshot",
    "click",
    "fill",
    "type",
    "press",
    "select",
    "wait",
    "text",
    "eval",
    "tabs",
    "screenshot",
    "inbox_consume",
]
# host/src/error.rs: the closed set.
CODES = {
    "invalid_argument",
    "not_found",
    "timeout",
    "busy",
    "outcome_unknown",
    "unsupported",
    "unauthorized",
    "forbidden",
    "browser_gone",
    "navigation_failed",
    "plugin_failed",
    "limit_exceeded",
    "internal",
}
PASS_ENV = ("WEBRIG_HOME", "WEBRIG_PORT", "WEBRIG_BROWSER", "WEBRIG_LOG")
CALL_TIMEOUT = timedelta(seconds=120)


class Failure(Exception):
    pass


def check(cond: bool, message: str) -> None:
    if not cond:
        raise Failure(message)


class Run:
    def __init__(self, args: argparse.Namespace, webrig: str):
        self.args = args
        self.webrig = webrig
        self.timings: dict[str, float] = {}
        self.facts: dict[str, object] = {}
        self.step = "start"
        self.phase = "core"

    def params(self, tools: str) -> StdioServerParameters:
        env = {k: os.environ[k] for k in PASS_ENV if k in os.environ}
        return StdioServerParameters(
            command=self.webrig,
            args=["mcp", "--tools", tools, "--session", self.args.session],
            env=env,
        )

    async def timed(self, name: str, coro):
        self.step = f"{self.phase}.{name}"
        started = time.perf_counter()
        result = await coro
        key, n = self.step, 2
        while key in self.timings:
            key, n = f"{self.step}#{n}", n + 1
        self.timings[key] = round((time.perf_counter() - started) * 1000, 2)
        return result

    async def call(self, session: ClientSession, name: str, args: dict, *, error=False):
        result: types.CallToolResult = await self.timed(
            name, session.call_tool(name, args, read_timeout_seconds=CALL_TIMEOUT)
        )
        if not error:
            check(
                not result.isError,
                f"{name} {json.dumps(args)} failed: {texts(result)!r}",
            )
        return result

    async def tools(self, session: ClientSession, label: str) -> list[types.Tool]:
        tools: list[types.Tool] = []
        cursor = None
        while True:
            page = await self.timed(
                label,
                session.list_tools(params=types.PaginatedRequestParams(cursor=cursor))
                if cursor
                else session.list_tools(),
            )
            tools.extend(page.tools)
            cursor = page.nextCursor
            if not cursor:
                return tools

    async def core(self) -> None:
        self.phase = "core"
        self.step = "starting `webrig mcp --tools core`"
        async with stdio_client(self.params("core")) as (read, write):
            async with ClientSession(read, write) as session:
                init = await self.timed("initialize", session.initialize())
                self.facts["server"] = {
                    "name": init.serverInfo.name,
                    "version": init.serverInfo.version,
                    "protocol": init.protocolVersion,
                }
                check(init.capabilities.tools is not None, "the server has no tools capability")

                tools = await self.tools(session, "list_tools")
                names = [t.name for t in tools]
                check(
                    sorted(names) == sorted(CORE),
                    f"--tools core lists {sorted(names)}, expected {sorted(CORE)}",
                )
                for t in tools:
                    schema = t.inputSchema or {}
                    check(
                        schema.get("type") == "object",
                        f"tool {t.name}: inputSchema type is {schema.get('type')!r}, not object",
                    )
                    check(bool(t.description), f"tool {t.name} has no description")

                await self.call(session, "goto", {"url": self.args.url})

                snap = await self.call(session, "snapshot", {})
                outline = texts(snap)
                check("@e" in outline, f"snapshot has no @e refs: {outline[:500]!r}")
                ref = pick_ref(outline, self.args.click_label)
                self.facts["clicked"] = ref

                await self.call(session, "click", {"target": ref})

                page = texts(await self.call(session, "text", {}))
                check(page.strip() != "", "text returned nothing")
                if self.args.expect_gone:
                    check(
                        self.args.expect_gone not in page,
                        f"after clicking {ref}, the page still shows "
                        f"{self.args.expect_gone!r}: {page[:500]!r}",
                    )

                value = texts(await self.call(session, "eval", {"script": "20 + 22"}))
                check("42" in value, f"eval 20 + 22 answered {value!r}")
                listing = texts(await self.call(session, "tabs", {}))
                check(listing.strip() != "", "tabs returned nothing")

                shot = await self.call(session, "screenshot", {})
                images = [c for c in shot.content if isinstance(c, types.ImageContent)]
                check(
                    len(images) == 1,
                    f"screenshot: expected one image content, got "
                    f"{[c.type for c in shot.content]}",
                )

                if self.args.inbox_expect:
                    got = await self.call(session, "inbox_consume", {})
                    entry = (got.structuredContent or {}).get("entry") or {}
                    self.facts["inbox"] = entry.get("id")
                    check(
                        entry.get("id") == self.args.inbox_expect,
                        f"inbox_consume gave {entry.get('id')!r}, expected "
                        f"{self.args.inbox_expect!r} (the entry for this client's scope)",
                    )
                check(
                    images[0].mimeType == "image/png",
                    f"screenshot mimeType is {images[0].mimeType!r}",
                )
                try:
                    png = base64.b64decode(images[0].data, validate=True)
                except ValueError as e:
                    raise Failure(f"screenshot data is not base64: {e}") from e
                check(
                    png.startswith(b"\x89PNG\r\n\x1a\n"),
                    f"screenshot data is not a PNG (starts {png[:8]!r})",
                )
                self.facts["png_bytes"] = len(png)

                bad = await self.call(session, "click", {"target": "@e9999"}, error=True)
                check(bad.isError, f"click @e9999 succeeded: {texts(bad)!r}")
                message = texts(bad)
                code = re.match(r"([a-z_]+):", message)
                check(
                    code is not None and code.group(1) in CODES,
                    f"click @e9999: error text does not start with an error code: {message!r}",
                )
                check(
                    code.group(1) == "not_found",
                    f"click @e9999: expected not_found, got {message!r}",
                )
                self.facts["refusal"] = message.splitlines()[0][:200]
                self.facts["error_has_hint"] = "hint:" in message

    async def all_tools(self, expected: list[str] | None, count: int) -> None:
        self.phase = "all"
        self.step = "starting `webrig mcp --tools all`"
        async with stdio_client(self.params("all")) as (read, write):
            async with ClientSession(read, write) as session:
                await self.timed("initialize", session.initialize())
                tools = await self.tools(session, "list_tools")
                names = [t.name for t in tools]
                check(len(set(names)) == len(names), f"--tools all repeats names: {names}")
                if expected is not None:
                    missing = sorted(set(expected) - set(names))
                    extra = sorted(set(names) - set(expected))
                    check(
                        not missing and not extra,
                        f"--tools all: {len(names)} tools for {len(expected)} commands; "
                        f"missing {missing}, not commands {extra}",
                    )
                check(
                    len(names) == count,
                    f"--tools all lists {len(names)} tools, expected {count}",
                )
                for t in tools:
                    check(
                        (t.inputSchema or {}).get("type") == "object",
                        f"tool {t.name}: inputSchema is not an object schema",
                    )
                self.facts["all_tools"] = len(names)
                if "close" in names:
                    await self.call(session, "close", {})

    async def listed(self) -> None:
        self.phase = "list"
        self.step = "starting `webrig mcp --tools goto,title`"
        async with stdio_client(self.params("goto,title")) as (read, write):
            async with ClientSession(read, write) as session:
                await self.timed("initialize", session.initialize())
                names = sorted(t.name for t in await self.tools(session, "list_tools"))
                check(names == ["goto", "title"], f"--tools goto,title lists {names}")


def texts(result: types.CallToolResult) -> str:
    return "\n".join(c.text for c in result.content if isinstance(c, types.TextContent))


def pick_ref(outline: str, label: str | None) -> str:
    for line in outline.splitlines():
        if label is not None and f'"{label}"' not in line:
            continue
        if label is None and (
            not re.search(r"@e\d+ (button|link)\b", line) or "[disabled]" in line
        ):
            continue
        found = re.search(r"@e\d+", line)
        if found:
            return found.group(0)
    want = f"a line with {label!r} and a ref" if label else "an enabled button or link with a ref"
    raise Failure(f"snapshot has no {want}: {outline[:800]!r}")


def commands(webrig: str) -> list[str]:
    out = subprocess.run(
        [webrig, "docs", "--openapi"], capture_output=True, text=True, timeout=60
    )
    check(out.returncode == 0, f"`webrig docs --openapi` failed: {out.stderr.strip()}")
    spec = json.loads(out.stdout)
    try:
        names = spec["components"]["schemas"]["Request"]["properties"]["command"]["enum"]
    except (KeyError, TypeError) as e:
        raise Failure(f"docs --openapi: no Request.command enum ({e})") from e
    check(bool(names), "docs --openapi: empty command enum")
    return list(names)


def unwrap(e: BaseException) -> BaseException:
    while isinstance(e, BaseExceptionGroup) and len(e.exceptions) == 1:
        e = e.exceptions[0]
    return e


async def main_async(run: Run) -> None:
    if run.args.all_count is not None:
        expected, count = None, run.args.all_count
    else:
        run.step = "webrig docs --openapi"
        expected = commands(run.webrig)
        count = len(expected)
    run.facts["commands"] = count
    with anyio.fail_after(run.args.deadline):
        await run.core()
        await run.all_tools(expected, count)
        await run.listed()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("url", help="a fixture page with a clickable button or link")
    p.add_argument("--webrig", default=os.environ.get("WEBRIG_BIN"))
    p.add_argument("--session", default=f"mcp-client-{os.getpid()}")
    p.add_argument("--click-label", help="accessible name of the element to click")
    p.add_argument("--expect-gone", help="text the page no longer shows after the click")
    p.add_argument("--inbox-expect", help="the inbox entry inbox_consume must give this client")
    p.add_argument(
        "--all-count",
        type=int,
        help="tools expected from --tools all (default: the commands of docs --openapi)",
    )
    p.add_argument("--deadline", type=float, default=300, help="seconds for everything")
    args = p.parse_args()
    webrig = args.webrig or shutil.which("webrig")
    if not webrig:
        print("client.py: no webrig binary (--webrig, WEBRIG_BIN or PATH)", file=sys.stderr)
        return 1
    run = Run(args, webrig)
    started = time.perf_counter()
    try:
        anyio.run(main_async, run)
    except BaseException as e:  # noqa: BLE001 - report whatever broke, then fail
        e = unwrap(e)
        if isinstance(e, KeyboardInterrupt):
            raise
        if isinstance(e, TimeoutError):
            reason = f"deadline of {args.deadline}s passed"
        elif isinstance(e, Failure):
            reason = str(e)
        else:
            reason = f"{type(e).__name__}: {e}"
        reason = f"{run.step}: {reason}"
        print(
            json.dumps({"ok": False, "error": reason, "timings_ms": run.timings, **run.facts}),
            flush=True,
        )
        print(f"client.py: FAILED at {reason}", file=sys.stderr)
        return 1
    total = round((time.perf_counter() - started) * 1000, 1)
    print(
        json.dumps({"ok": True, "total_ms": total, "timings_ms": run.timings, **run.facts}),
        flush=True,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
