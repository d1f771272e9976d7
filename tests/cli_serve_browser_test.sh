#!/usr/bin/env bash
# End to end in a real browser: `cdclake serve` runs the quick start while headless Chromium
# loads the monitoring page. The rendered DOM (after the page's own refresh script ran) must
# list every flow of the pipeline with the counts /metrics reports, all "ok"; the flow page must
# have its two charts and an event-log row at the target's version; the table page must list
# the columns `cdclake schema` reports and a row per version `cdclake history` lists. The pages
# are screenshotted into $2. Chromium's net log must show no request leaving loopback, and the
# served HTML must reference nothing outside the server. Last, with the page open, a new input
# file arrives: the page must show the new counts without being reloaded.
# Usage: cli_serve_browser_test.sh CDCLAKE_BINARY SCREENSHOT_DIR   (CHROMIUM overrides the browser)
set -euo pipefail
bin=${1:?usage: cli_serve_browser_test.sh CDCLAKE_BINARY SCREENSHOT_DIR}
shots=${2:?usage: cli_serve_browser_test.sh CDCLAKE_BINARY SCREENSHOT_DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
pipeline=$root/examples/quickstart/pipeline.sql
chromium=${CHROMIUM:-/usr/bin/chromium}
work=$(mktemp -d)
serve_pid=
started=$SECONDS

fail() {
  echo "FAIL: $*"
  exit 1
}

cleanup() {
  local rc=$?
  if [ -n "$serve_pid" ] && kill -0 "$serve_pid" 2>/dev/null; then
    kill -TERM "$serve_pid" 2>/dev/null || true
    for _ in $(seq 100); do kill -0 "$serve_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$serve_pid" 2>/dev/null || true
  fi
  if [ "$rc" -ne 0 ] && [ -f "$work/serve.log" ]; then
    echo "--- serve log (last 30 lines)"
    tail -n 30 "$work/serve.log"
  fi
  rm -rf "$work"
}
trap cleanup EXIT

[ -x "$chromium" ] || fail "$chromium not found (scripts/setup installs Debian's chromium)"
command -v curl > /dev/null || fail "curl not found"
mkdir -p "$shots"

# --- 1. serve the quick start -------------------------------------------------------------
cp -r "$root/examples/quickstart/data" "$work/data"
: > "$work/serve.log"  # there before the background job's redirection opens it
"$bin" serve "$pipeline" --var data="$work/data" --warehouse "$work/lake" \
  --listen 127.0.0.1:0 --refresh 500ms 2> "$work/serve.log" &
serve_pid=$!

port=
for _ in $(seq 300); do  # 30 s
  port=$(sed -n 's|.*serving on http://127\.0\.0\.1:\([0-9][0-9]*\)/.*|\1|p' "$work/serve.log" |
    head -n 1)
  [ -n "$port" ] && break
  kill -0 "$serve_pid" 2>/dev/null || fail "serve exited before listening"
  sleep 0.1
done
[ -n "$port" ] || fail "no 'serving on http://127.0.0.1:PORT/' line in 30 s"
base=http://127.0.0.1:$port
ready=0
for _ in $(seq 600); do  # 60 s
  if curl -sf --max-time 5 "$base/readyz" > "$work/readyz.txt"; then ready=1; break; fi
  kill -0 "$serve_pid" 2>/dev/null || fail "serve exited before it was ready"
  sleep 0.1
done
[ "$ready" = 1 ] ||
  fail "/readyz did not answer 200 in 60 s: $(curl -s --max-time 5 "$base/readyz" || true)"

# What the server and the CLI say, for the checks below.
"$bin" run "$pipeline" --var data="$work/data" --warehouse "$work/lake" --dry-run \
  > "$work/dry-run.txt"
curl -sf --max-time 10 "$base/metrics" > "$work/metrics.txt" || fail "GET /metrics"
"$bin" schema "$work/lake/shop/customers" > "$work/schema.txt" || fail "cdclake schema"
"$bin" history "$work/lake/shop/customers" --format jsonl > "$work/history.jsonl" ||
  fail "cdclake history"
for page in / /flow/customers_current /table/shop.customers /no-such-page; do
  name=$(tr -c 'a-z0-9_.\n' '_' <<< "$page")
  curl -s --max-time 10 "$base$page" > "$work/served$name.html" || fail "GET $page"
done

# --- the checks, in Python (standard library only) -----------------------------------------
cat > "$work/check.py" << 'PYTHON'
import html.parser, ipaddress, json, os, re, select, subprocess, sys, time, urllib.parse
import urllib.request

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.children = tag, dict(attrs), parent, []

    def text(self):
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def classes(self):
        return (self.attrs.get("class") or "").split()

    def all(self, tag=None, cls=None, **attrs):
        out = []
        for c in self.children:
            if isinstance(c, str):
                continue
            if ((tag is None or c.tag == tag) and (cls is None or cls in c.classes()) and
                    all(c.attrs.get(k.replace("_", "-")) == v for k, v in attrs.items())):
                out.append(c)
            out.extend(c.all(tag, cls, **attrs))
        return out

    def one(self, what, tag=None, cls=None, **attrs):
        found = self.all(tag, cls, **attrs)
        if len(found) != 1:
            fail(f"{what}: expected exactly one, found {len(found)}")
        return found[0]


class TreeBuilder(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {}, None)
        self.cur = self.root

    def handle_starttag(self, tag, attrs):
        node = Node(tag, attrs, self.cur)
        self.cur.children.append(node)
        if tag not in VOID:
            self.cur = node

    def handle_startendtag(self, tag, attrs):
        self.cur.children.append(Node(tag, attrs, self.cur))

    def handle_endtag(self, tag):
        n = self.cur
        while n is not None and n.tag != tag:
            n = n.parent
        if n is not None and n.parent is not None:
            self.cur = n.parent

    def handle_data(self, data):
        self.cur.children.append(data)


def parse_html(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if "<main" not in text:
        fail(f"{os.path.basename(path)}: no <main> in the page ({len(text)} bytes)")
    b = TreeBuilder()
    b.feed(text)
    b.close()
    return b.root


def number(text, what):
    t = text.strip().replace(",", "")
    if not re.fullmatch(r"-?\d+", t):
        fail(f"{what}: '{text.strip()}' is not a whole number")
    return int(t)


# --- /metrics (text exposition format 0.0.4) ---
LABEL = re.compile(r'\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(,|$)')


def unescape(m):  # a label value's \\, \" and \n
    return "\n" if m.group(1) == "n" else m.group(1)


def parse_metrics(path):
    samples, types = [], {}
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for n, line in enumerate(lines, 1):
        if not line:
            continue
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ", 3)
            if name in types:
                fail(f"/metrics line {n}: a second TYPE line for {name}")
            types[name] = kind
            continue
        if line.startswith("#"):
            continue
        m = re.fullmatch(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)", line)
        if not m:
            fail(f"/metrics line {n} is not NAME{{LABELS}} VALUE: {line}")
        labels, rest = {}, m.group(2) or ""
        while rest:
            lm = LABEL.match(rest)
            if not lm:
                fail(f"/metrics line {n}: bad labels: {m.group(2)}")
            labels[lm.group(1)] = re.sub(r"\\(.)", unescape, lm.group(2))
            rest = rest[lm.end():]
        family = re.sub(r"_(bucket|sum|count)$", "", m.group(1))
        if m.group(1) not in types and family not in types:
            fail(f"/metrics line {n}: {m.group(1)} has no TYPE line before it")
        samples.append((m.group(1), labels, float(m.group(3))))
    return samples, types


def metric(samples, name, **labels):
    values = [v for n, l, v in samples
              if n == name and all(l.get(k) == want for k, want in labels.items())]
    if len(values) != 1:
        fail(f"/metrics: expected one {name}{labels}, found {len(values)}")
    return values[0]


def flows_from_dry_run(path):
    with open(path, encoding="utf-8") as f:
        return [m.group(1) for m in re.finditer(r"^\d+\. flow (\S+)$", f.read(), re.M)]


def check_metrics(args):
    metrics, dry_run = args
    samples, types = parse_metrics(metrics)
    planned = flows_from_dry_run(dry_run)
    if not planned:
        fail("`cdclake run --dry-run` listed no flow")
    served = [l["flow"] for n, l, v in samples if n == "cdclake_flow_rows_read_total"]
    if served != planned:
        fail(f"/metrics flows {served} differ from the dry run's {planned}")
    # Histogram buckets: cumulative, +Inf equal to _count.
    hist = "cdclake_flow_batch_duration_seconds"
    if types.get(hist) != "histogram":
        fail(f"/metrics: {hist} is not TYPE histogram")
    for flow in planned:
        buckets = [(l["le"], v) for n, l, v in samples
                   if n == hist + "_bucket" and l["flow"] == flow]
        les = [float(le) for le, _ in buckets]
        if les != sorted(les) or les[-1] != float("inf"):
            fail(f"/metrics: {flow}'s buckets are not in increasing le order ending in +Inf: {les}")
        counts = [v for _, v in buckets]
        if any(b < a for a, b in zip(counts, counts[1:])):
            fail(f"/metrics: {flow}'s buckets are not cumulative: {counts}")
        if counts[-1] != metric(samples, hist + "_count", flow=flow):
            fail(f"/metrics: {flow}'s +Inf bucket differs from its _count")
    print(f"ok: /metrics lists the {len(planned)} flows of the dry run; histograms cumulative")


# --- the pages, as Chromium rendered them ---
def updated_text(doc):
    t = doc.one("the header's .updated", "span", "updated").text().strip()
    if t.startswith("not refreshed"):
        fail(f"the page's refresh failed: '{t}'")
    return t


def check_index(args):
    dom, metrics, dry_run = args
    samples, _ = parse_metrics(metrics)
    doc = parse_html(dom)
    updated_text(doc)
    flows_table = doc.one("table#flows", "table", id="flows")
    rows = [r for r in flows_table.all("tr")
            if "data-flow" in r.attrs and "message-row" not in r.classes()]
    listed = [r.attrs["data-flow"] for r in rows]
    planned = flows_from_dry_run(dry_run)
    if listed != planned:
        fail(f"table#flows lists {listed}, the pipeline has {planned}")
    columns = {"read": "cdclake_flow_rows_read_total", "applied": "cdclake_flow_rows_applied_total",
               "discarded": "cdclake_flow_rows_discarded_total",
               "quarantined": "cdclake_flow_rows_quarantined_total",
               "expectations-failed": "cdclake_flow_expectation_failures_total"}
    for r in rows:
        flow = r.attrs["data-flow"]
        for cls, name in columns.items():
            shown = number(r.one(f"{flow} td.{cls}", "td", cls).text(), f"{flow} td.{cls}")
            want = metric(samples, name, flow=flow)
            if shown != want:
                fail(f"flow {flow}: td.{cls} shows {shown}, /metrics {name} says {want:g}")
        for cls in ("rows-per-second", "lag", "last-commit"):
            if not r.one(f"{flow} td.{cls}", "td", cls).text().strip():
                fail(f"flow {flow}: td.{cls} is empty")
        state = r.one(f"{flow} span.state", "span", "state").text().strip()
        if state != "ok":
            fail(f"flow {flow}: state badge says '{state}', expected 'ok'")
    tables = doc.one("table#tables", "table", id="tables")
    trows = {r.attrs["data-table"]: r for r in tables.all("tr") if "data-table" in r.attrs}
    want_tables = sorted({l["target"] for n, l, v in samples if n == "cdclake_flow_up"})
    if sorted(trows) != want_tables:
        fail(f"table#tables lists {sorted(trows)}, the flows write {want_tables}")
    for table, r in trows.items():
        for cls in ("version", "files", "rows"):
            shown = number(r.one(f"{table} td.{cls}", "td", cls).text(), f"{table} td.{cls}")
            want = metric(samples, f"cdclake_table_{cls}", table=table)
            if shown != want:
                fail(f"table {table}: td.{cls} shows {shown}, /metrics says {want:g}")
    print(f"ok: / lists {len(rows)} flows (read/applied/discarded/quarantined/expectations as "
          f"/metrics, all 'ok') and {len(trows)} tables (version/files/rows as /metrics)")


def column(table, header, what):
    heads = [th.text().strip() for th in table.all("th")]
    if header not in heads:
        fail(f"{what}: no '{header}' column (columns: {heads})")
    i = heads.index(header)
    out = []
    for tr in table.one(f"{what} tbody", "tbody").all("tr"):
        cells = [c for c in tr.children if not isinstance(c, str) and c.tag == "td"]
        out.append(cells[i].text().strip())
    return out


def check_flow(args):
    dom, metrics, flow, target = args
    samples, _ = parse_metrics(metrics)
    doc = parse_html(dom)
    updated_text(doc)
    card = doc.one("dl#card", "dl", id="card")
    for cls, name in (("read", "cdclake_flow_rows_read_total"),
                      ("applied", "cdclake_flow_rows_applied_total")):
        shown = number(card.one(f"dl#card span.{cls}", "span", cls).text(), f"dl#card span.{cls}")
        if shown != metric(samples, name, flow=flow):
            fail(f"flow page: dl#card span.{cls} shows {shown}, /metrics says otherwise")
    charts = doc.all("svg", "chart")
    if len(charts) != 2:
        fail(f"flow page: {len(charts)} svg.chart elements, expected 2")
    for svg in charts:
        if not svg.all("polyline") or not svg.all("circle"):
            fail(f"flow page: chart '{svg.attrs.get('aria-label')}' draws no line (no batches?)")
    version = int(metric(samples, "cdclake_table_version", table=target))
    batches = doc.one("table#batches", "table", id="batches")
    versions = column(batches, "version", "table#batches")
    if not versions:
        fail("flow page: table#batches has no rows")
    if str(version) not in versions:
        fail(f"flow page: no table#batches row at version {version} of {target} "
             f"(versions: {versions})")
    print(f"ok: /flow/{flow} has dl#card (counts as /metrics), 2 svg charts with points and "
          f"{len(versions)} event-log rows, one at version {version}")


def check_table(args):
    dom, schema, history = args
    doc = parse_html(dom)
    updated_text(doc)
    doc.one("dl#facts", "dl", id="facts")
    with open(schema, encoding="utf-8") as f:
        want = [tuple(line.split(None, 1)) for line in f.read().splitlines() if line.strip()]
    table = doc.one("table#schema", "table", id="schema")
    shown = list(zip(column(table, "column", "table#schema"),
                     column(table, "type", "table#schema")))
    if shown != want:
        fail(f"table page: table#schema shows {shown}, `cdclake schema` says {want}")
    with open(history, encoding="utf-8") as f:
        versions = [str(json.loads(line)["version"]) for line in f if line.strip()]
    listed = column(doc.one("table#history", "table", id="history"), "version", "table#history")
    if listed != versions[:30]:
        fail(f"table page: table#history lists versions {listed}, `cdclake history` {versions}")
    print(f"ok: the table page lists the {len(want)} columns `cdclake schema` reports and "
          f"versions {', '.join(listed)} as `cdclake history`")


def check_png(args):
    for path in args:
        with open(path, "rb") as f:
            data = f.read()
        if data[:8] != b"\x89PNG\r\n\x1a\n":
            fail(f"{path} is not a PNG")
        if len(data) <= 10_000:
            fail(f"{path} is only {len(data)} bytes (a blank page?)")
        print(f"ok: {os.path.basename(path)}: {len(data)} bytes")


# --- what the served HTML references ---
URL_ATTRS = {"src", "href", "action", "formaction", "poster", "data", "srcset", "background",
             "ping", "xlink:href", "manifest", "cite", "longdesc", "codebase"}


def check_refs(args):
    port, pages = args[0], args[1:]
    allowed = re.compile(rf"^https?://(127\.0\.0\.1|localhost|\[::1\]):{port}(/|$)")
    for path in pages:
        doc = parse_html(path)
        stack, bad = [doc], []
        while stack:
            n = stack.pop()
            for c in n.children:
                if isinstance(c, str):
                    continue
                stack.append(c)
                for k, v in c.attrs.items():
                    v = (v or "").strip()
                    external = re.match(r"^([a-zA-Z][a-zA-Z0-9+.-]*:|//)", v)
                    if k in URL_ATTRS and external and not allowed.match(v):
                        bad.append(f'<{c.tag} {k}="{v}">')
                if c.tag in ("style", "script"):
                    text = c.text()
                    targets = re.findall(r"url\(\s*['\"]?([^'\")\s]*)", text)
                    targets += re.findall(r"@import\s+['\"]([^'\"]*)", text)
                    targets += re.findall(r"(?<![\w/])((?:https?:)?//[^\s'\"`)<>]+)", text)
                    for t in targets:
                        if re.match(r"^([a-zA-Z][a-zA-Z0-9+.-]*:|//)", t) and not allowed.match(t):
                            bad.append(f"in <{c.tag}>: {t}")
        if bad:
            fail(f"{os.path.basename(path)} references outside the server: {sorted(set(bad))}")
    print(f"ok: {len(pages)} served pages reference nothing outside {port} on loopback")


# --- Chromium's net log ---
def load_netlog(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    try:
        return json.loads(text)
    except ValueError:
        pass
    # Cut short (the browser was killed): events are one per line; drop the partial tail.
    body = text.rstrip()
    for _ in range(200):
        try:
            return json.loads(body.rstrip().rstrip(",") + "]}")
        except ValueError:
            cut = body.rfind("\n")
            if cut < 0:
                break
            body = body[:cut]
    fail(f"{path}: not a net log, even cut short")


def loopback(host):
    host = (host or "").strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


INTERNAL = ("data:", "about:", "chrome:", "chrome-error:", "chrome-untrusted:", "devtools:",
            "blob:")


def host_of(value):
    """The host a net-log value names: a URL, 'scheme://host:port', 'host:port', '[v6]:port',
    a socket group ('pm/http://host:port <...>'), or a bare host."""
    v = value.strip()
    m = re.search(r"[a-zA-Z][a-zA-Z0-9+.-]*://[^\s<>]*", v)
    if m:
        u = urllib.parse.urlsplit(m.group(0))
        return u.hostname or ""
    m = re.fullmatch(r"\[([0-9a-fA-F:.]+)\](?::\d+)?", v) or re.fullmatch(r"([^:\s]+)(?::\d+)?", v)
    return m.group(1) if m else v


DESTINATION_KEYS = {"url", "original_url", "location", "new_url", "redirect_url", "host",
                    "destination", "logical_destination", "group_id", "address", "remote_address",
                    "peer_address", "server", "endpoint", "proxy_server", "origin", "initiator"}


def check_netlog(args):
    port, page_url, logs = args[0], args[1], args[2:]
    for path in logs:
        log = load_netlog(path)
        types = {v: k for k, v in log["constants"]["logEventTypes"].items()}
        sources = {v: k for k, v in log["constants"]["logSourceType"].items()}
        events = log.get("events") or []
        requested, bad, udp_probes, udp_sent, outer = [], [], {}, set(), {}
        for e in events:
            etype, src = types.get(e["type"], str(e["type"])), e.get("source", {})
            stype = sources.get(src.get("type"), str(src.get("type")))
            params = e.get("params") or {}
            if stype == "UDP_SOCKET" and etype == "SOCKET_ALIVE" and "source_dependency" in params:
                outer[src.get("id")] = params["source_dependency"].get("id")
            if stype == "UDP_SOCKET" and etype in ("UDP_BYTES_SENT", "UDP_SEND_ERROR",
                                                   "UDP_BYTES_RECEIVED", "UDP_RECEIVE_ERROR"):
                udp_sent.add(src.get("id"))
            if etype in ("REQUEST_ALIVE", "URL_REQUEST_START_JOB") and "url" in params:
                requested.append(params["url"])

            def walk(key, value):
                if isinstance(value, dict):
                    for k, v in value.items():
                        walk(k, v)
                elif isinstance(value, list):
                    for v in value:
                        walk(key, v)
                elif isinstance(value, str) and key in DESTINATION_KEYS:
                    if etype == "UDP_LOCAL_ADDRESS":  # the socket's own end, not where it goes
                        return
                    if value.startswith(INTERNAL) or value in (
                            "", "null", "not an origin", "[direct://]", "direct://", "DIRECT"):
                        return
                    if not loopback(host_of(value)):
                        where = (host_of(value),
                                 f"{etype} ({stype} {src.get('id')}) {key}={value[:120]}")
                        if stype in ("UDP_SOCKET", "UDP_CLIENT_SOCKET") and \
                                etype in ("UDP_CONNECT", "SOCKET_CONNECT"):
                            udp_probes[src.get("id")] = where
                        else:
                            bad.append(where)
                elif isinstance(value, str) and key == "address_list":
                    walk("address", value)

            walk("", params)
        # A UDP connect() puts nothing on the wire (Chromium probes IPv6 reachability so); it
        # counts only if that socket then sent something.
        udp_sent |= {outer.get(i) for i in udp_sent}
        bad += [w for sid, w in udp_probes.items() if sid in udp_sent]
        name = os.path.basename(path)
        if not events:
            fail(f"{name}: the net log holds no events")
        if page_url not in requested:
            fail(f"{name}: the net log never requested {page_url}; "
                 f"it logged {sorted(set(requested))}")
        for url in requested:
            if url.startswith(INTERNAL):
                continue
            if not loopback(urllib.parse.urlsplit(url).hostname):
                bad.append((urllib.parse.urlsplit(url).hostname, f"requested {url[:120]}"))
        if bad:
            hosts = sorted({h for h, _ in bad})
            examples = sorted({w for _, w in bad},
                              key=lambda w: (not w.startswith("requested"), w))[:12]
            fail(f"{name}: traffic leaving loopback, to {hosts}; for example:\n  " +
                 "\n  ".join(examples))
        others = sorted({u.split("?")[0] for u in requested
                         if urllib.parse.urlsplit(u).port != int(port)})
        note = f"; Chromium's own, kept on loopback by its flags: {', '.join(others)}" \
            if others else ""
        print(f"ok: {name}: {len(requested)} requests, none leaving loopback{note}")


def check_refreshed(args):
    """The --dump-dom run's net log: the page fetched itself after its first load."""
    page_url, path = args
    log = load_netlog(path)
    types = {v: k for k, v in log["constants"]["logEventTypes"].items()}
    starts = [e["params"] for e in log["events"] if types.get(e["type"]) == "URL_REQUEST_START_JOB"
              and (e.get("params") or {}).get("url") == page_url]
    fetches = [p for p in starts if p.get("request_type") != "main frame"]
    if len([p for p in starts if p.get("request_type") == "main frame"]) != 1 or not fetches:
        fail(f"{os.path.basename(path)}: {page_url} was loaded {len(starts)} times, "
             f"{len(fetches)} by the page's refresh script; expected 1 load and at least 1 refresh")
    print(f"ok: {page_url} refreshed itself {len(fetches)} times before the DOM was dumped")


# --- a live page over the DevTools protocol (on a pipe: no port) ---
class Browser:
    def __init__(self, command):
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()

        def fds():
            a, b = to_chrome_r, from_chrome_w
            while a <= 4:
                a = os.dup(a)
            while b <= 4:
                b = os.dup(b)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen(command, preexec_fn=fds,
                                     pass_fds=(3, 4), stdout=subprocess.DEVNULL,
                                     stderr=open(os.environ["CHROME_LOG"], "ab"))
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buffer, self.next_id, self.events = b"", 0, []

    def _read(self, deadline):
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                fail("Chromium did not answer over the DevTools pipe in time")
            ready, _, _ = select.select([self.from_chrome], [], [], left)
            if ready:
                chunk = os.read(self.from_chrome, 1 << 20)
                if not chunk:
                    fail("Chromium closed the DevTools pipe (crashed?)")
                self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, params=None, session=None, timeout=20):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_chrome, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            m = self._read(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    fail(f"DevTools {method}: {m['error']}")
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, method, session, timeout=20):
        deadline = time.monotonic() + timeout
        while True:
            for i, m in enumerate(self.events):
                if m.get("method") == method and m.get("sessionId") == session:
                    return self.events.pop(i)
            self.events.append(self._read(deadline))

    def close(self):
        try:  # no answer awaited: the browser may close the pipe first
            message = {"id": 0, "method": "Browser.close"}
            os.write(self.to_chrome, json.dumps(message).encode() + b"\0")
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


PAGE_STATE = r"""JSON.stringify({
  probe: window.__cdclakeProbe || null,
  navigations: performance.getEntriesByType('navigation').length,
  firstMain: document.querySelector('main[data-probe]') !== null,
  updated: (document.querySelector('.updated') || {}).textContent || '',
  flows: Array.from(document.querySelectorAll('#flows tr[data-flow]:not(.message-row)'))
    .map(tr => ({
    flow: tr.dataset.flow,
    read: tr.querySelector('td.read').textContent,
    applied: tr.querySelector('td.applied').textContent,
    state: tr.querySelector('span.state').textContent})),
})"""


def metrics_now(base):
    with urllib.request.urlopen(base + "/metrics", timeout=5) as r:
        text = r.read().decode()
    path = os.path.join(os.environ["WORK"], "metrics-live.txt")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return parse_metrics(path)[0]


def counts(samples):
    applied = "cdclake_flow_rows_applied_total"
    return {l["flow"]: (int(v), int(metric(samples, applied, flow=l["flow"])))
            for n, l, v in samples if n == "cdclake_flow_rows_read_total"}


def shown_counts(page):
    return {f["flow"]: (number(f["read"], "read"), number(f["applied"], "applied"))
            for f in page["flows"]}


def check_live_refresh(args):
    base, data_dir, command = args[0], args[1], args[2:]
    browser = Browser(command)
    try:
        targets = browser.call("Target.getTargets")["targetInfos"]
        pages = [t for t in targets if t["type"] == "page"]
        target = pages[0]["targetId"] if pages else browser.call(
            "Target.createTarget", {"url": "about:blank"})["targetId"]
        session = browser.call("Target.attachToTarget",
                               {"targetId": target, "flatten": True})["sessionId"]
        browser.call("Page.enable", session=session)
        browser.call("Page.navigate", {"url": base + "/"}, session=session)
        browser.wait_event("Page.loadEventFired", session)

        def state():
            r = browser.call("Runtime.evaluate", {"expression": PAGE_STATE, "returnByValue": True},
                             session=session)
            if "exceptionDetails" in r:
                fail(f"reading the live page: {r['exceptionDetails']}")
            return json.loads(r["result"]["value"])

        browser.call("Runtime.evaluate", {"expression":
                     "window.__cdclakeProbe = 'first load'; "
                     "document.querySelector('main').dataset.probe = 'first';"}, session=session)
        first = state()
        before = counts(metrics_now(base))
        shown = shown_counts(first)
        if shown != before:
            fail(f"live page before the new file: {shown}, /metrics: {before}")

        # A new event: customer 2 moves, at an LSN after every event of the quick start.
        customers = os.path.join(data_dir, "customers")
        with open(os.path.join(customers, "customers-0002.json"), encoding="utf-8") as f:
            event = [e for e in map(json.loads, f) if e["op"] == "u" and e["after"]["id"] == 2][0]
        event["after"] = dict(event["after"], city="Refresh Falls")
        event["source"] = dict(event["source"], lsn=990000, txId=990000,
                               sequence='["990000", "990000"]',
                               ts_ms=event["source"]["ts_ms"] + 10_000)
        event["ts_ms"] += 10_000
        staged = os.path.join(os.environ["WORK"], "customers-0003.json")
        with open(staged, "w", encoding="utf-8") as f:
            f.write(json.dumps(event) + "\n")
        os.rename(staged, os.path.join(customers, "customers-0003.json"))

        deadline, after, last = time.monotonic() + 30, None, None
        while time.monotonic() < deadline:
            now = counts(metrics_now(base))
            if now["shop.bronze_customers"][0] > before["shop.bronze_customers"][0] and all(
                    now[f][0] > before[f][0] for f in ("customers_current", "customers_history")):
                after = now
                last = state()
                shown = shown_counts(last)
                if shown == after and not last["firstMain"] and last["updated"] != first["updated"]:
                    break
            time.sleep(0.25)
        else:
            if after is None:
                fail(f"/metrics did not count the new file in 30 s: {before} then {now}")
            fail(f"the open page did not catch up with /metrics in 30 s: page {last}, "
                 f"/metrics {after}")
        if last["probe"] != "first load" or last["navigations"] != 1:
            fail("the page was reloaded instead of refreshing itself in place")
        if last["updated"].startswith("not refreshed"):
            fail(f"the page's refresh failed: {last['updated']}")
        bad_states = [f for f in last["flows"] if f["state"] != "ok"]
        if bad_states:
            fail(f"after the new file, flows not ok: {bad_states}")
        moved = {f: (before[f], after[f]) for f in after if after[f] != before[f]}
        print(f"ok: the open page swapped in a new <main> (no reload) showing the new counts "
              f"{moved}; header '{first['updated']}' -> '{last['updated']}'")
    finally:
        browser.close()


{"metrics": check_metrics, "index": check_index, "flow": check_flow, "table": check_table,
 "png": check_png, "refs": check_refs, "netlog": check_netlog, "refreshed": check_refreshed,
 "live": check_live_refresh}[sys.argv[1]](sys.argv[2:])
PYTHON
check() { python3 "$work/check.py" "$@" || exit 1; }

check metrics "$work/metrics.txt" "$work/dry-run.txt"

# --- 2-4. Chromium: the rendered DOM, screenshots, the net log ---------------------------
# Flags that stop Chromium's own traffic. Background networking, component updates, sync,
# default apps, metrics and pings have switches; network time queries a feature. Two requests
# have none in Chromium 156: the on-demand "Optimization Guide On DeviceModels Manifest"
# component (update.googleapis.com, made even with --disable-component-update) and GAIA's
# ListAccounts (accounts.google.com, made when the profile's network starts). Their servers
# are pointed at a closed loopback port, so they never leave the machine. No host name resolves
# (only IP literals are used here): a new background request would show in the net log and fail
# the check rather than reach the network.
chrome_flags=(
  --headless --no-sandbox --disable-gpu --no-first-run --no-default-browser-check
  --disable-background-networking --disable-component-update --disable-sync
  --disable-default-apps --disable-extensions --metrics-recording-only --no-pings
  --disable-breakpad --disable-domain-reliability --disable-client-side-phishing-detection
  --disable-features=NetworkTimeServiceQuerying
  --gaia-url=http://127.0.0.1:9/ --component-updater=url-source=http://127.0.0.1:9/
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'
  --net-log-capture-mode=Default
)
chrome() {  # NAME ARGS...: one headless run with its own profile and net log
  local name=$1
  shift
  timeout 60 "$chromium" "${chrome_flags[@]}" --user-data-dir="$work/chrome-$name" \
    --log-net-log="$work/netlog-$name.json" "$@" 2>> "$work/chromium.log" ||
    fail "chromium ($name) failed with $?: $(tail -n 5 "$work/chromium.log")"
}

chrome index --virtual-time-budget=1500 --dump-dom "$base/" > "$work/dom-index.html"
check refreshed "$base/" "$work/netlog-index.json"
check index "$work/dom-index.html" "$work/metrics.txt" "$work/dry-run.txt"

chrome flow --virtual-time-budget=1500 --dump-dom "$base/flow/customers_current" \
  > "$work/dom-flow.html"
check refreshed "$base/flow/customers_current" "$work/netlog-flow.json"
check flow "$work/dom-flow.html" "$work/metrics.txt" customers_current shop.customers

chrome table --virtual-time-budget=1500 --dump-dom "$base/table/shop.customers" \
  > "$work/dom-table.html"
check refreshed "$base/table/shop.customers" "$work/netlog-table.json"
check table "$work/dom-table.html" "$work/schema.txt" "$work/history.jsonl"

rm -f "$shots/serve-index.png" "$shots/serve-flow.png"
chrome shot-index --window-size=1400,900 --hide-scrollbars --virtual-time-budget=1000 \
  --screenshot="$shots/serve-index.png" "$base/" > /dev/null
chrome shot-flow --window-size=1400,900 --hide-scrollbars --virtual-time-budget=1000 \
  --screenshot="$shots/serve-flow.png" "$base/flow/customers_current" > /dev/null
check png "$shots/serve-index.png" "$shots/serve-flow.png"

check refs "$port" "$work"/served*.html "$work/dom-index.html" "$work/dom-flow.html" \
  "$work/dom-table.html"

# --- 5. the open page refreshes itself ------------------------------------------------------
# Over the DevTools protocol on a pipe (no port): the page is loaded once, then a new input file
# arrives; the page must show /metrics' new counts in a new <main>, without a reload.
WORK=$work CHROME_LOG=$work/chromium.log timeout 90 python3 "$work/check.py" live "$base" \
  "$work/data" "$chromium" --remote-debugging-pipe "${chrome_flags[@]}" \
  --user-data-dir="$work/chrome-live" --log-net-log="$work/netlog-live.json" about:blank ||
  exit 1

# Each run's net log, with the page it loaded.
for run in index:/ flow:/flow/customers_current table:/table/shop.customers shot-index:/ \
  shot-flow:/flow/customers_current live:/; do
  check netlog "$port" "$base${run#*:}" "$work/netlog-${run%%:*}.json"
done

# --- SIGTERM stops serve cleanly ---------------------------------------------------------------
kill -TERM "$serve_pid"
rc=
for _ in $(seq 300); do  # 30 s
  if ! kill -0 "$serve_pid" 2>/dev/null; then
    wait "$serve_pid" && rc=0 || rc=$?
    break
  fi
  sleep 0.1
done
[ -n "$rc" ] || fail "serve did not stop within 30 s of SIGTERM"
serve_pid=
[ "$rc" = 0 ] || fail "serve exited with $rc after SIGTERM"
grep -q 'cdclake: stopped' "$work/serve.log" || fail "serve did not say it stopped"
echo "ok: SIGTERM stopped serve with exit code 0"
echo "PASS: cli_serve_browser_test ($((SECONDS - started)) s)"
