"""The API docs as one HTML page made on the server from the OpenAPI document: every
path, method, parameter, body and response, the conventions (tokens, problems,
pagination) and each kind of problem. No script and no external URL, so it works
with no internet (the UIs Litestar bundles load theirs from a CDN)."""

from __future__ import annotations

from html import escape
from typing import Any

from litestar import Request
from litestar.openapi.plugins import OpenAPIRenderPlugin

from kartludo.service.errors import PROBLEMS

CONVENTIONS = """
<h2 id="conventions">Conventions</h2>
<ul>
<li><strong>Tokens.</strong> Send <code>Authorization: Bearer TOKEN</code>: a TD token
(<code>kartludo token new</code>) or a seat token (returned once by <code>POST /matches</code>).
Without one a caller sees public information only.</li>
<li><strong>Errors</strong> are RFC 9457 problem details (<code>application/problem+json</code>):
<code>type</code>, <code>title</code>, <code>status</code>, <code>detail</code>, and <code>rule</code> for a
command a game rule refuses (<code>error</code> repeats <code>detail</code>). A refused request writes nothing.</li>
<li><strong>Creation</strong> answers <code>201 Created</code> with a <code>Location</code> header naming the new
resource.</li>
<li><strong>Lists</strong> take <code>limit</code> and a cursor <code>after</code>; while more follow, the
response carries <code>Link: &lt;URL&gt;; rel="next"</code>. Without <code>limit</code> a list comes whole.</li>
<li><strong>Retries</strong>: a <code>command_id</code> makes a write idempotent for its caller.</li>
<li>The machine-readable document: <a href="/schema/openapi.json">/schema/openapi.json</a>.</li>
</ul>
"""

STYLE = """<style>
body{font-family:system-ui,sans-serif;max-width:70rem;margin:0 auto;padding:1rem;line-height:1.4}
section.op{border-top:1px solid #ccc;padding:.5rem 0}
code,.path{font-family:ui-monospace,monospace}
.method{display:inline-block;min-width:4.5rem;font-weight:bold;text-transform:uppercase}
table{border-collapse:collapse;margin:.3rem 0}td,th{border:1px solid #ddd;padding:.15rem .4rem;text-align:left;
vertical-align:top}
</style>"""


def _schema_text(schema: dict[str, Any] | None) -> str:
    """A schema in a few words: its type or the component it refers to, and its limits."""
    if not schema:
        return ""
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return f'<a href="#schema-{escape(name)}">{escape(name)}</a>'
    for combo in ("oneOf", "anyOf"):
        if combo in schema:
            return " | ".join(_schema_text(s) for s in schema[combo])
    kind = schema.get("type", "")
    if isinstance(kind, list):
        kind = " | ".join(kind)
    if kind == "array":
        return f"array of {_schema_text(schema.get('items'))}"
    limits = [f"{k} {schema[k]}" for k in ("minimum", "maximum", "minLength", "maxLength", "pattern") if k in schema]
    if "enum" in schema:
        limits.append("one of " + ", ".join(map(str, schema["enum"])))
    return escape(str(kind)) + (f" <small>({escape('; '.join(limits))})</small>" if limits else "")


def _operation(path: str, method: str, op: dict[str, Any]) -> str:
    anchor = f"{method}-{path}".replace("/", "-").replace("{", "").replace("}", "")
    out = [f'<section class="op" id="{escape(anchor)}"><h3><span class="method">{escape(method)}</span> '
           f'<span class="path">{escape(path)}</span></h3>']
    text = op.get("description") or op.get("summary") or ""
    if text:
        out.append(f"<p>{escape(text)}</p>")
    params = op.get("parameters") or []
    if params:
        out.append("<table><tr><th>parameter</th><th>in</th><th>required</th><th>schema</th></tr>")
        for p in params:
            out.append(f"<tr><td><code>{escape(p['name'])}</code></td><td>{escape(p.get('in', ''))}</td>"
                       f"<td>{'yes' if p.get('required') else 'no'}</td><td>{_schema_text(p.get('schema'))}"
                       f"{(' — ' + escape(p['description'])) if p.get('description') else ''}</td></tr>")
        out.append("</table>")
    body = op.get("requestBody")
    if body:
        kinds = ", ".join(f"<code>{escape(m)}</code>: {_schema_text(c.get('schema'))}"
                          for m, c in body.get("content", {}).items())
        out.append(f"<p>Body{' (required)' if body.get('required') else ''}: {kinds}</p>")
    out.append("<table><tr><th>status</th><th>meaning</th><th>body</th></tr>")
    for status, resp in sorted((op.get("responses") or {}).items()):
        shapes = ", ".join(f"<code>{escape(m)}</code> {_schema_text(c.get('schema'))}"
                           for m, c in (resp.get("content") or {}).items())
        headers = ", ".join(f"<code>{escape(h)}</code>" for h in resp.get("headers") or {})
        out.append(f"<tr><td>{escape(str(status))}</td><td>{escape(resp.get('description', ''))}"
                   f"{(' · headers: ' + headers) if headers else ''}</td><td>{shapes}</td></tr>")
    out.append("</table></section>")
    return "\n".join(out)


def _component(name: str, schema: dict[str, Any]) -> str:
    required = set(schema.get("required") or [])
    rows = "".join(f"<tr><td><code>{escape(field)}</code></td><td>{'yes' if field in required else 'no'}</td>"
                   f"<td>{_schema_text(sub)}</td></tr>" for field, sub in (schema.get("properties") or {}).items())
    table = f"<table><tr><th>field</th><th>required</th><th>schema</th></tr>{rows}</table>" if rows else ""
    return f'<section id="schema-{escape(name)}"><h3>{escape(name)}</h3>{table}</section>'


def render_docs(schema: dict[str, Any]) -> str:
    """The whole docs page for the OpenAPI document ``schema``."""
    info = schema.get("info", {})
    title = escape(f"{info.get('title', 'API')} {info.get('version', '')}".strip())
    ops = [_operation(path, method, op) for path, item in sorted(schema.get("paths", {}).items())
           for method, op in item.items() if isinstance(op, dict) and "responses" in op]
    problems = "".join(f'<section id="problem-{slug}"><h3>{escape(title_)} <small>({status}, '
                       f'<code>/schema#problem-{slug}</code>)</small></h3><p>{escape(when)}</p></section>'
                       for slug, (status, title_, when) in PROBLEMS.items())
    components = "".join(_component(name, sub) for name, sub in
                         sorted((schema.get("components") or {}).get("schemas", {}).items()))
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,"><title>{title} · API docs</title>{STYLE}</head>
<body><header><p><a href="/ui/">kartludo</a> · API docs</p><h1>{title}</h1></header>
<nav><a href="#conventions">Conventions</a> · <a href="#operations">Operations</a> ·
<a href="#problems">Problems</a> · <a href="#schemas">Schemas</a></nav>
{CONVENTIONS}
<h2 id="operations">Operations</h2>
{''.join(ops)}
<h2 id="problems">Problems</h2>
{problems}
<h2 id="schemas">Schemas</h2>
{components}
</body></html>
"""


class OfflineDocs(OpenAPIRenderPlugin):
    """Serves ``render_docs`` at ``/schema`` (and ``/schema/docs``)."""

    def __init__(self) -> None:
        super().__init__(path=["/", "/docs"])

    def render(self, request: Request[Any, Any, Any], openapi_schema: dict[str, Any]) -> bytes:
        return render_docs(openapi_schema).encode()
