"""The front end on a phone in a hall: JavaScript and CSS per page (gzipped, as CloudFront and the site serve
them) against the table page's 150 KB budget, and the first render on Chromium's "Fast 3G" profile (CDP network
emulation: 562.5 ms round trip, 1.44 Mbit/s down, 675 kbit/s up), a cold cache each time; then again with the
CPU slowed 4× like a mid-range phone. Target: the table page's first render under 2 s. Reference measured in the same run: the
published Jinja2 round page (no JavaScript) under the same profile. Prints medians of 5 loads."""
from __future__ import annotations

import gzip
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import ROOT, on_ddb_local  # noqa: E402
from datetime import UTC

FAST_3G = {"offline": False, "latency": 562.5, "downloadThroughput": 1.44e6 / 8, "uploadThroughput": 675e3 / 8}
RUNS = int(os.environ.get("BENCH_RUNS", "5"))
BUDGET_KB, TARGET_S = 150, 2.0


def bundle_sizes(dist: Path) -> dict[str, tuple[int, int, int]]:
    """Each page's JavaScript and CSS as a first visit in its default language downloads them before its first
    screen (the scripts and styles its HTML loads, and its first <meta name="catalog">: one language's words), and
    the JavaScript it fetches just after (shared/later.js's chunks), gzipped at level 9, in bytes."""
    def gz(r):
        return len(gzip.compress((dist / r).read_bytes(), 9))
    out = {}
    for page in sorted(dist.glob("*.html")):
        html = page.read_text()
        refs = re.findall(r'(?:src|href)="\./(assets/[^"]+)"', html) + re.findall(r'<meta name="catalog" [^>]*content="\./(assets/[^"]+)"', html)[:1]
        js = [r for r in refs if r.endswith(".js")]
        later = {f"assets/{f}" for r in js for f in re.findall(r'["`]\./([\w-]+\.js)["`]', (dist / r).read_text())
                 if not f.startswith("catalog-")} - set(js)
        out[page.name] = (sum(map(gz, js)), sum(gz(r) for r in refs if r.endswith(".css")), sum(map(gz, later)))
    return out


def print_workers(dist: Path) -> None:
    """The offline pages' service workers (issue 36): each worker's size and what it precaches once the page is up
    (gzipped; the files the page itself already loaded mostly come from the browser's cache)."""
    def gz(p):
        return len(gzip.compress(p.read_bytes(), 9))
    workers = sorted(dist.glob("sw-*.js"))
    if not workers:
        print("  offline workers: none in this build")
    for w in workers:
        files = [dist / u for u in re.findall(r'\{url:"([^"]+)"', w.read_text())]
        print(f"  {w.name:<24} {gz(w) / 1024:8.1f} KB, precaches {len(files)} files, {sum(map(gz, files)) / 1024:.1f} KB")


def main() -> None:
    from scripts.site_build import built_site
    # BENCH_DIST: measure another build (an older commit's frontend/dist, say) under the same conditions
    dist = Path(os.environ["BENCH_DIST"]) if os.environ.get("BENCH_DIST") else built_site()
    print("bundle (gzip -9)            JavaScript      CSS   (JavaScript after the first screen)")
    sizes = bundle_sizes(dist)
    for name, (js, css, later) in sizes.items():
        print(f"  {name:<24} {js / 1024:8.1f} KB {css / 1024:8.1f} KB   (+{later / 1024:.1f} KB)")
    table_js = sum(sizes["score.html"][::2]) / 1024
    print(f"  table page JavaScript, all of it {table_js:.1f} KB against the {BUDGET_KB} KB budget: {'OK' if table_js < BUDGET_KB else 'OVER'}")
    print_workers(dist)
    on_ddb_local(lambda: first_render(dist))


def first_render(dist: Path) -> None:
    from datetime import date, datetime, timedelta

    from chalicelib import bootstrap
    from chalicelib.models import EventConfig, RegistrationIn, TournamentIn
    from chalicelib.publish.sinks import LocalSink
    from chalicelib.services import organisers, publishing, registration, rounds, tournaments
    from chalicelib.store import dynamo, schema
    from chalicelib.store.repositories import Repos
    from scripts import ddblocal

    table = "bench_frontend"
    dynamo.reset_client()
    schema.ensure_table(dynamo.client(), table)
    publish_dir = tempfile.mkdtemp(prefix="bench-site-")
    d = bootstrap.Deps(repos=Repos(dynamo.Table(table)), clock=lambda: datetime.now(UTC), publisher=LocalSink(publish_dir))
    bootstrap.override(d)
    org, _ = organisers.create_organiser(d, "基准组委会")
    t = tournaments.create_tournament(d, org, TournamentIn(name="基准杯", starts_on=date.today() + timedelta(days=2)))
    ev = tournaments.create_event(d, org, t.id, EventConfig.model_validate(
        {"name": "二打一", "game": "doudizhu", "entry": "individual", "capacity": 30, "fee": {"amount": 0},
         "stages": [{"format": "swiss", "rounds": 5}]}))
    for i in range(12):
        r = registration.register(d, ev.id, RegistrationIn(members=[{"name": f"牌手{i}", "phone": f"1380000{i:04d}"}]), None)
        registration.check_in(d, ev.id, r.entry.id)
    rnd, _ = rounds.draw_next(d, org, ev.id, 1)
    publishing.publish_tournament(d, t.id)
    bootstrap.override(None)

    api_port, site_port = ddblocal.free_port(), ddblocal.free_port()
    env = dict(os.environ, TABLE_NAME=table, STAGE="local", PUBLISH_DIR=publish_dir, API_URL=f"http://127.0.0.1:{api_port}",
               SITE_URL=f"http://127.0.0.1:{site_port}")
    env.pop("STRIPE_SECRET_KEY", None)
    log = open(ROOT / ".data" / "bench-frontend.log", "ab")
    procs = [subprocess.Popen([sys.executable, "-m", "scripts.api_server", "--host", "127.0.0.1", "--port", str(api_port)],
                              cwd=str(ROOT), env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True),
             subprocess.Popen([sys.executable, "-m", "scripts.site_server", "--port", str(site_port), "--frontend", str(dist),
                               "--published", publish_dir, "--api", f"http://127.0.0.1:{api_port}"],
                              cwd=str(ROOT), env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)]
    try:
        ddblocal.wait_for_port(api_port, 60)
        ddblocal.wait_for_port(site_port, 30)
        site = f"http://127.0.0.1:{site_port}"
        pages = [("table page (Vue)", f"{site}/score.html?e={ev.id}&r=1&t=1&c={rnd.tables[0].codes[0]}", "[data-testid=entry]"),
                 ("tournament page (Vue)", f"{site}/index.html?t={t.id}", "[data-event]"),
                 ("published round (Jinja2, reference)", f"{site}/t/{t.id}/{ev.id}/round-1.html", "table")]
        measure(pages)
    finally:
        for p in procs:
            ddblocal.stop(p)


def measure(pages) -> None:
    for cpu in (int(x) for x in os.environ.get("BENCH_CPU", "1,4").split(",")):   # BENCH_CPU=1: the network profile only
        run_profile(pages, cpu)


def run_profile(pages, cpu: int) -> None:
    from playwright.sync_api import sync_playwright
    print(f"first render on Fast 3G{'' if cpu == 1 else f', CPU {cpu}× slower (a mid-range phone)'}, cold cache "
          f"(median of {RUNS}; FCP = first paint with content, shown = the page's data on screen, min–max beside)")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=[
            "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"])
        results = {}
        for name, url, ready in pages:
            fcp, shown = [], []
            for _ in range(RUNS):
                ctx = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
                page = ctx.new_page()
                cdp = ctx.new_cdp_session(page)
                cdp.send("Network.enable")
                cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
                cdp.send("Network.emulateNetworkConditions", FAST_3G)
                cdp.send("Emulation.setCPUThrottlingRate", {"rate": cpu})
                page.goto(url, wait_until="commit")
                # the first animation frame (the one painted next) in which the data is on screen, timed in the page:
                # Playwright's own answer comes later by its round trips (tens of ms on a loaded machine)
                page.wait_for_function("""(sel) => { const el = document.querySelector(sel);
                    if (!el || !el.getClientRects().length) return false;
                    window.__shown = window.__shown || performance.now(); return true; }""", arg=ready, polling="raf", timeout=60_000)
                # the first paint's entry is written just after that frame is painted: wait for it (none on some static pages)
                try:
                    page.wait_for_function("performance.getEntriesByName('first-contentful-paint').length > 0", timeout=3_000)
                except Exception:  # noqa: BLE001 - Chromium records no entry for some static pages
                    pass
                t = page.evaluate("""() => ({shown: window.__shown,
                    fcp: (performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime || 0})""")
                if os.environ.get("BENCH_TRACE"):
                    print(page.evaluate("""() => performance.getEntriesByType('resource').concat(performance.getEntriesByType('navigation')).map(e =>
                        `${e.name.slice(-60).padEnd(60)} start ${e.startTime.toFixed(0).padStart(5)} resp ${e.responseStart.toFixed(0).padStart(5)} end ${e.responseEnd.toFixed(0).padStart(5)}`).join('\\n')"""))
                fcp.append(t["fcp"] / 1000)
                shown.append(t["shown"] / 1000)
                ctx.close()
            results[name] = (statistics.median(fcp), statistics.median(shown))
            # Chromium records no first-contentful-paint entry for some static pages: say so rather than 0.00
            fcp_text = f"{results[name][0]:5.2f} s" if results[name][0] else "    — "
            print(f"  {name:<38} FCP {fcp_text}   shown {results[name][1]:5.2f} s  ({min(shown):.2f}–{max(shown):.2f})")
        browser.close()
    fcp, shown = results["table page (Vue)"]
    print(f"  table page: first render (data shown) {shown:.2f} s against the {TARGET_S:.0f} s target: {'OK' if shown < TARGET_S else 'OVER'}"
          f" (reference, the Jinja2 page without JavaScript: {results['published round (Jinja2, reference)'][1]:.2f} s)")


if __name__ == "__main__":
    main()
