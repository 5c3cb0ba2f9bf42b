"""`bloomery report` on PostgreSQL: the same command reads another adapter through dbt (lists
arrive as arrays, JSON as objects) and the page says the same things."""
from __future__ import annotations

import re

import pytest

from .corpus_checks import load_shop
from .harness import PgProject, report

pytestmark = pytest.mark.postgres


def test_report_on_postgres(tmp_path, pg_server):
    project = PgProject(tmp_path, pg_server)
    load_shop(project)
    assert project.compile() == 0
    project.dbt("build")
    out = tmp_path / "report.html"
    code, err = report(project, out)
    assert code == 0, err
    html = out.read_text(encoding="utf-8")
    text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))
    assert "1 run in the mart" in html and "postgres" in text
    for row in project.rows("select entity, rows_evaluated, rows_quarantined from main.mart_data_quality "
                            "where rule = '(entity)'"):
        flagged = project.query(f'select count(*) from main."{row["entity"]}" where not _quality_ok')[0][0]
        kept = row["rows_evaluated"] - row["rows_quarantined"]
        assert f"{row['entity']} {row['rows_evaluated']} {kept} {flagged} {row['rows_quarantined']}" in text
    assert '<th>notes</th><td><span class="redacted">redacted</span>' in html
    assert '<span class="chip quarantine" title="quarantine">country_length</span>' in html
    assert "customer_id = C9" in text and "bad mail" in text
