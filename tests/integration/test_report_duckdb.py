"""`bloomery report` end to end on DuckDB: the shop corpus built twice (two runs in the mart), the
report written through the CLI (reading through dbt), then rendered by headless Chromium and the
screenshot checked: not blank, every entity's chart colour on it.

Chromium is required, not optional: `apt-get update && apt-get install -y chromium` (Debian), or
point BLOOMERY_CHROMIUM at a Chrome/Chromium binary.
"""
from __future__ import annotations

import contextlib
import html as html_lib
import json
import io
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from bloomery.cli import main as bloomery_main
from bloomery.report.render import PALETTE

from . import png
from .corpus_checks import load_shop
from .harness import DuckProject, report

pytestmark = pytest.mark.duckdb

ROOT = Path(__file__).resolve().parents[2]
INSTALL = "apt-get update && apt-get install -y chromium"
HOSTILE = "<script>alert('bronze')</script>"
CUSTOMER_COLUMNS = ["id", "email", "country", "signup", "notes", "_load_id", "_ingested_at", "_source_row_id"]
SECOND_DELIVERY = [   # more dirty customers, so the second run's quarantine rate differs from the first's
    ("C11", "c11@example.com", "FRA", "2021-01-01", None, "l3", "2024-01-10 00:00:00", "c-11"),
    ("C12", HOSTILE, "XXX", "2021-01-01", "card 4111 1111 1111 1111", "l3", "2024-01-10 00:00:00", "c-12"),
    ("C13", "c13@example.com", "ch", "2021-13-01", None, "l3", "2024-01-10 00:00:00", "c-13"),
]


def chromium() -> str:
    found = os.environ.get("BLOOMERY_CHROMIUM") or next(
        (p for p in (shutil.which(n) for n in ("chromium", "chromium-browser", "google-chrome")) if p), None)
    if not found:
        pytest.fail(f"headless Chromium is needed to check the report's rendering and none is installed: "
                    f"run `{INSTALL}` (or set BLOOMERY_CHROMIUM to a Chrome/Chromium binary)", pytrace=False)
    return found


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("report")
    project = DuckProject(tmp)
    load_shop(project)
    assert project.compile() == 0
    project.dbt("build")
    first = {r[0] for r in project.query("select distinct run_id from mart_data_quality")}
    project.write_bronze("crm__customers", CUSTOMER_COLUMNS, SECOND_DELIVERY, append=True)
    project.dbt("build")
    second = {r[0] for r in project.query("select distinct run_id from mart_data_quality")} - first
    assert len(first) == len(second) == 1
    project.runs = [first.pop(), second.pop()]
    project.entities = [r[0] for r in project.query("select distinct entity from mart_data_quality order by 1")]
    out = tmp / "out" / "report.html"
    code, err = report(project, out, "--specs", str(project.dir / "specs"))
    return project, out, code, err


@pytest.fixture(scope="module")
def html(built):
    _, out, code, err = built
    assert code == 0, err
    return out.read_text(encoding="utf-8")


def test_the_cli_says_each_step_on_stderr(built):
    project, out, code, err = built
    assert code == 0, err
    lines = err.splitlines()
    assert all(line.startswith("bloomery report: ") for line in lines), err
    for step in ("parsing the dbt project", "reading mart_data_quality", f"2 runs of {len(project.entities)} entities",
                 "counting flagged rows", "sampling unresolved rejects of customer",
                 "sampling unresolved rejects of order_item", f"wrote {out}"):
        assert any(step in line for line in lines), (step, err)


def test_the_page_names_every_entity_disposition_and_redaction(built, html):
    project = built[0]
    assert {"customer", "order", "order_item"} <= set(project.entities)
    for entity in project.entities:
        assert f">{entity}<" in html
    dispositions = {r[0] for r in project.query("select distinct disposition from mart_data_quality "
                                                "where rule <> '(entity)'")}
    assert {"flag", "quarantine"} <= dispositions
    for disposition in dispositions | {"fail"}:
        assert f'class="badge {disposition}">{disposition}<' in html
    assert '<th>notes</th><td><span class="redacted">redacted</span>' in html
    assert "card 4111" not in html                        # redacted at the source, and never on the page
    assert "2 runs in the mart" in html


def test_the_page_escapes_bronze_payloads(html):
    assert "<script" not in html.lower()
    assert "&lt;script&gt;alert(&#x27;bronze&#x27;)&lt;/script&gt;" in html


def test_the_counts_are_the_warehouse_counts(built, html):
    project = built[0]
    latest = project.rows("select entity, rows_evaluated, rows_quarantined, rows_deduped from mart_data_quality "
                          f"where rule = '(entity)' and run_id = '{project.runs[1]}'")
    assert sorted(r["entity"] for r in latest) == project.entities
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))
    for row in latest:
        e = row["entity"]
        flagged = project.query(f'select count(*) from main."{e}" where not _quality_ok')[0][0]
        kept = row["rows_evaluated"] - row["rows_quarantined"]
        rate = f"{100 * row['rows_quarantined'] / row['rows_evaluated']:.1f}%"
        expected = f"{e} {row['rows_evaluated']} {kept} {flagged} {row['rows_quarantined']} {row['rows_deduped']} {rate}"
        assert expected in text, expected


def test_the_chart_draws_both_runs_per_entity(built, html):
    project = built[0]
    lines = re.findall(r'<polyline class="series" data-entity="([^"]+)"[^>]*points="([^"]*)"', html)
    assert [e for e, _ in lines] == project.entities
    assert all(len(points.split()) == 2 for _, points in lines)
    rates = [project.query("select rows_quarantined / rows_evaluated from mart_data_quality where rule = '(entity)' "
                           f"and entity = 'customer' and run_id = '{run}'")[0][0] for run in project.runs]
    assert rates[1] > rates[0]                                 # the second delivery is dirtier
    customer = [float(p.split(",")[1]) for p in lines[project.entities.index("customer")][1].split()]
    assert customer[1] < customer[0]                           # so its line goes up the page


def _screenshot(browser: str, page: Path, tmp_path: Path, height: int = 900) -> "png.Image":
    """The page as headless Chromium draws it, 1280 pixels wide."""
    shot = tmp_path / "page.png"
    run = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--force-color-profile=srgb", "--hide-scrollbars", f"--user-data-dir={tmp_path / 'profile'}",
         f"--screenshot={shot}", f"--window-size=1280,{height}", page.as_uri()],
        capture_output=True, text=True, timeout=180)
    assert shot.is_file(), f"Chromium wrote no screenshot (exit {run.returncode}):\n{run.stderr[-2000:]}"
    return png.read(shot.read_bytes())


def test_chromium_renders_the_chart(built, html, tmp_path):
    image = _screenshot(chromium(), built[1], tmp_path, height=1400)
    assert (image.width, image.height) == (1280, 1400)
    colours = image.colours()
    background = max(colours.values())
    assert background < 0.9 * image.width * image.height, "the screenshot is (nearly) one colour: blank"
    assert len(colours) > 200, "too few colours for a page of text and a chart"
    for entity, colour in zip(built[0].entities, PALETTE):
        rgb = tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))
        assert colours.get(rgb, 0) >= 200, f"{entity}'s chart colour {colour} is not on the screenshot"


def test_an_unreadable_project_exits_1_with_the_reason(tmp_path):
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = bloomery_main(["report", "--project-dir", str(tmp_path / "nowhere"), "--out", str(tmp_path / "r.html")])
    assert code == 1
    assert "bloomery report: dbt could not parse the project" in err.getvalue()
    assert not (tmp_path / "r.html").exists()


def test_the_chart_shows_the_baseline_band_and_rings_the_run_out_of_band(tmp_path):
    """Issue 24: test_drift.py's history on a `full` entity (each build judges all of bronze, so the
    drift judges the rate the chart plots): eight steady loads, then one whose quarantined share
    jumps. The page draws quality_drift's band under the line and rings the 9th run; Chromium shows
    both (the band's light tint of the entity's colour, the ring's red)."""
    from bloomery.report.render import BAND_OPACITY, FLAGGED

    from .test_drift import COLUMNS, STEADY, load, specs

    root = specs(tmp_path)
    (root / "model.yaml").write_text((root / "model.yaml").read_text().replace("incremental_by_key", "full"))
    project = DuckProject(tmp_path / "p", specs=root)
    assert project.compile() == 0
    for n in range(1, 10):
        shape = dict(STEADY, not_int=40) if n == 9 else STEADY
        project.write_bronze("lab__readings", COLUMNS, load(n, **shape), append=n > 1)
        project.dbt("build")
    assert project.query("select count(*) from main.quality_drift where is_latest and metric = 'quarantine_rate' "
                         "and out_of_band") == [(1,)]
    out = tmp_path / "report.html"
    code, err = report(project, out)
    assert code == 0, err
    page = out.read_text(encoding="utf-8")
    assert page.count('<polygon class="band" data-entity="reading"') == 1   # runs 8 and 9: one stretch
    assert page.count('<circle class="flagged" data-entity="reading"') == 1
    assert "out of band: quarantine rate, rule value_coercible" in page

    image = _screenshot(chromium(), out, tmp_path)
    colours = image.colours()
    base = tuple(int(PALETTE[0][i:i + 2], 16) for i in (1, 3, 5))
    tint = tuple(round(255 + (c - 255) * BAND_OPACITY) for c in base)   # the band over the white card
    ring = tuple(int(FLAGGED[i:i + 2], 16) for i in (1, 3, 5))

    def near(rgb, tolerance=3):
        return sum(n for c, n in colours.items() if all(abs(a - b) <= tolerance for a, b in zip(c, rgb)))

    assert near(tint) >= 150, f"the band's tint {tint} is not on the screenshot"
    assert near(ring) >= 20, f"the ring's red {ring} is not on the screenshot"


MEASURE = """<script>
  // what Chromium laid out: each y-axis label, and the top of each baseline band against the
  // grid line of 100% (screen pixels grow downwards)
  const grid = [...document.querySelectorAll('svg.chart line.grid')];
  const labels = [...document.querySelectorAll('svg.chart text.ytick')];
  const hundred = labels.findIndex(t => t.textContent === '100%');
  const out = {
    labels: labels.map(t => t.textContent),
    hundred: hundred < 0 ? null : grid[hundred].getBoundingClientRect().top,
    bands: [...document.querySelectorAll('svg.chart polygon.band')].map(p => p.getBoundingClientRect().top),
  };
  const pre = document.createElement('pre');
  pre.id = 'measured';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
</script>"""


def test_chromium_draws_the_rate_axis_to_100_percent_at_most(tmp_path):
    """Issue 41: a steady 80% quarantine rate has a baseline band of median + 50% of it (drift's
    min_change), 120%; the chart caps the band, so the axis Chromium draws ends at 100%, and no
    band reaches above its 100% line. Measured in the page as Chromium lays it out (a copy of the
    report with a script that reads the layout: the report itself forbids scripts)."""
    from .test_drift import COLUMNS, load, specs

    root = specs(tmp_path)
    (root / "model.yaml").write_text((root / "model.yaml").read_text().replace("incremental_by_key", "full")
                                     + "    drift: {min_history: 3, window: 5}\n")
    project = DuckProject(tmp_path / "p", specs=root)
    assert project.compile() == 0
    for n in range(1, 6):
        project.write_bronze("lab__readings", COLUMNS, load(n, rows=50, not_int=40, negative=0, no_unit=0),
                             append=n > 1)
        project.dbt("build")
    band = project.query("select max(baseline_median + band) from main.quality_drift "
                         "where metric = 'quarantine_rate' and judged")[0][0]
    assert band > 1.1, band   # uncapped, the band would take the axis past 100%
    out = tmp_path / "report.html"
    code, err = report(project, out)
    assert code == 0, err
    page = out.read_text(encoding="utf-8")
    assert '<polygon class="band" data-entity="reading"' in page

    measured_page = tmp_path / "measured.html"
    measured_page.write_text(page.replace("default-src 'none'", "default-src 'none'; script-src 'unsafe-inline'")
                             .replace("</body>", MEASURE + "</body>"), encoding="utf-8")
    run = subprocess.run([chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                          "--disable-background-networking", "--disable-component-update", "--disable-sync",
                          f"--user-data-dir={tmp_path / 'profile'}", "--window-size=1280,1400", "--dump-dom",
                          measured_page.as_uri()], capture_output=True, text=True, timeout=180)
    found = re.search(r'<pre id="measured">(.*?)</pre>', run.stdout)
    assert found, f"Chromium ran no measurement (exit {run.returncode}):\n{run.stderr[-2000:]}"
    measured = json.loads(html_lib.unescape(found.group(1)))
    assert measured["labels"][-1] == "100%", measured
    assert all(float(label.rstrip("%")) <= 100 for label in measured["labels"]), measured
    assert measured["bands"] and all(top >= measured["hundred"] - 0.5 for top in measured["bands"]), measured
